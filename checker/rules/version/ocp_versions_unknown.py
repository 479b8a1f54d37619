"""
What: the label names a release that is not in olm-check's table: above its newest one, or
a 4.x release that does not exist (the release after 4.22 is 5.0, also called 4.23, as
OLM's `normalizeOCPVersion` has it: `v4.24` names no release).

Why: not a mistake of the bundle, but olm-check cannot check what it does not know; the
release's Kubernetes version decides which APIs are removed.

Fix: update olm-check, or add the release in .olm-check.yaml:
    ocp_releases:
      - {ocp: "5.1", kube: "1.37", ga: false}
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import LABEL_KEY, label_unknown
from .. import define

RULE = define("ocp-versions-unknown", "The range names OpenShift releases olm-check does not know",
              __doc__, category="version")


@RULE.check
def ocp_versions_unknown(bundle: Bundle, ctx: Context):
    af = bundle.annotations_file
    if bundle.annotations is None or af is None:
        return
    lr = bundle.versions.label_parsed
    if lr is None or not lr.ok:
        return
    table = ctx.ocp
    unknown = label_unknown(lr, table)
    if unknown:
        yield RULE.at(af, bundle.versions.label_node,
                      f"{LABEL_KEY} names OpenShift {', '.join(unknown)}, which olm-check's release table does not know "
                      f"(it ends at {table.newest.label()})",
                      detail="Releases beyond the table are not checked. Update olm-check, or add the release under "
                      f"ocp_releases in .olm-check.yaml, e.g. {{ocp: \"{unknown[-1]}\", kube: \"1.xx\", ga: false}}.")
