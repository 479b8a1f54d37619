"""
What: the value is read by catalog tooling but is off the documented form: a missing `v`
(`4.12`, `4.14-4.17`), a lower bound below OpenShift 4 (`v3.6-v4.8`), the legacy comma
list (`v4.5,v4.6`).

Why: the documented form is what people copy and read. The catalog pipeline passes the
value to Pyxis (operator-pipelines, `ocp_version_info`), which publishes such bundles to
the intended catalogs (bundles spelled this way are in the community catalogs), and OLM
does not read the label: nothing changes, hence info.

Fix: use the canonical spelling the message gives.

Bad:
    com.redhat.openshift.versions: "4.14-4.17"
Good:
    com.redhat.openshift.versions: "v4.14-v4.17"
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import LABEL_KEY
from .. import define
from ..lib.fixes import fix_value

RULE = define("ocp-versions-style", "com.redhat.openshift.versions is accepted but not in the documented form",
              __doc__, category="version")


@RULE.check
def ocp_versions_style(bundle: Bundle, ctx: Context):
    af = bundle.annotations_file
    if bundle.annotations is None or af is None:
        return
    lr = bundle.versions.label_parsed
    node = bundle.versions.label_node
    if lr is None or not lr.ok:
        return
    for p in lr.style:
        fix = fix_value(af, node, f'"{lr.canonical}"', f"write {lr.canonical}") if lr.canonical else None
        yield RULE.at(af, node, f"{LABEL_KEY}: {p.message}", fix=fix, detail=p.detail)
