"""
What: maxOpenShiftVersion below the label's lower bound (every release the bundle is
published to is above its max), or a label that reaches releases above
maxOpenShiftVersion (some of them: max 4.12 with `v4.12-v4.14`, seed 000's own example
of an invalid combination). Both are errors.

Why: a cluster above maxOpenShiftVersion that installs the bundle is at once marked not
upgradeable (OLM compares max with the cluster's next minor release); every release above
max that the label publishes to is one where every user who installs the bundle blocks
their cluster's upgrades.

Refused by: OLM's upgradeable check (`incompatibleOperators` in
pkg/controller/operators/openshift/helpers.go), which blocks cluster upgrades.

Fix: close the label at maxOpenShiftVersion (`v4.6-v4.8` with max "4.8"), or raise max.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import LABEL_KEY, clip, vkey, vstr
from .. import define, refusal
from ..lib.versions_common import OLM_MAX, max_first_decl, rels

RULE = define("max-ocp-version-range", "maxOpenShiftVersion conflicts with the published range",
              __doc__, category="version", refused_by=[
    refusal("cluster-upgrade", "a cluster running a release above maxOpenShiftVersion that installs the bundle is marked not "
            "upgradeable at once (OLM compares the cluster's next minor release with the CSV's max)",
            OLM_MAX),
])


@RULE.check
def max_ocp_version_range(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    if vi.max_ocp is None:
        return
    table = ctx.ocp
    mx = vkey(vi.max_ocp)
    first = max_first_decl(vi)
    lr = vi.label_parsed
    if lr is not None and lr.ok and not vi.explicit_target:
        if lr.lower is not None and mx < lr.lower:
            yield RULE.at(first.file, first.node,
                          f"maxOpenShiftVersion {vi.max_ocp} is below the lower bound {vstr(lr.lower)} of {LABEL_KEY} '{clip(lr.raw)}'",
                          ocp=vi.ocp_versions,
                          detail="Every release the bundle is published to is above its max, so OLM marks any cluster that "
                          "installs it not upgradeable at once. Raise maxOpenShiftVersion or lower the label.")
        elif lr.upper is None or lr.upper > mx:
            above = [r for r in table.releases if r.key > mx and lr.contains(r.key)]
            if above:
                yield RULE.at(first.file, first.node,
                              f"{LABEL_KEY} '{clip(lr.raw)}' publishes the bundle to OpenShift {rels(above)}, above its "
                              f"maxOpenShiftVersion {vi.max_ocp}", ocp=above,
                              detail="OLM compares maxOpenShiftVersion with the cluster's next minor release, so a cluster "
                              "there that installs the bundle from its catalog is marked Not Upgradeable at once (seed 000 "
                              "calls such a combination invalid). Close the label: "
                              f"\"v{vstr(lr.lower)}-v{vi.max_ocp}\".")
