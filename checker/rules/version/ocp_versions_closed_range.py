"""
What: the label has an upper bound (`v4.12-v4.16`, `=v4.14`) below the newest GA release.

Why: the bundle silently disappears from the catalogs of newer releases; users there do
not see this version. That may be what you want (the next version takes over) — this is
a reminder, not a problem.

A label that names only releases whose catalogs are no longer built (kind `unpublished`)
publishes the bundle nowhere, and the catalog pipelines refuse it: their release lookup
(`ocp_version_info`) fails with "No supported indices found".

Fix: nothing, or open the range (`v4.12`) when the bundle works on newer releases too;
a label that reaches no supported release must name one.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import LABEL_KEY, clip, vkey, vstr
from .. import define, refusal
from ..lib.versions_common import CI_INDICES, fbc_operator, rels

RULE = define("ocp-versions-closed-range", "The range ends before the newest OpenShift release, or names no release still built",
              __doc__, category="version", refused_by=[
    refusal("catalog-ci", "the pipeline's release lookup keeps the label's releases that are still supported and fails the pull"
            " request when none is (\"No supported indices found\")",
            CI_INDICES),
])


@RULE.check
def ocp_versions_closed_range(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    af = bundle.annotations_file
    if bundle.annotations is None or af is None:
        return
    lr = vi.label_parsed
    node = vi.label_node
    if lr is None or not lr.ok:
        return
    table = ctx.ocp
    fbc = fbc_operator(bundle)
    live = ctx.live() if not fbc and not vi.explicit_target else None
    if live is not None and vi.ocp_versions and not (set(vi.ocp_versions) & live):
        # the pipeline's release lookup keeps only supported releases and fails without one
        # (operator-pipelines operatorcert/__init__.py ocp_version_info: "No supported indices found")
        yield RULE.at(af, node,
                      f"{LABEL_KEY} '{clip(lr.raw)}' names only OpenShift {rels(vi.ocp_versions)}, whose catalogs are no "
                      "longer built: no built catalog includes the bundle", kind="unpublished", ocp=vi.ocp_versions,
                      detail="The catalog pipeline publishes a bundle to the releases of its label that are still "
                      "supported, and fails the pull request when none is (\"No supported indices found\"). Name a "
                      f"supported release, e.g. 'v{min(live, key=vkey)}'.")
    elif lr.upper is not None and lr.upper < table.newest_ga.key and lr.upper >= table.first.key and not fbc \
            and not vi.explicit_target:
        after = [r for r in table.releases if r.key > lr.upper and r.ga]
        yield RULE.at(af, node,
                      f"{LABEL_KEY} '{clip(lr.raw)}' ends at {vstr(lr.upper)}: not published to OpenShift {rels(after)}",
                      ocp=after, detail=f"This version is not in the catalogs of OpenShift {rels(after)}, so users there will "
                      f"not see it. Open the range ('v{vstr(lr.lower)}') if it works on newer releases too.")
