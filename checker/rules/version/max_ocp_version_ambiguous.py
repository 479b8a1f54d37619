"""
What: more than one `olm.maxOpenShiftVersion` declaration (twice in one list, or in both
the CSV's `olm.properties` and metadata/properties.yaml), whatever the values.

Why: today's OLM refuses more than one ("defining more than one ... is not allowed") and
blocks cluster upgrades; older OLM took the highest.

Refused by: OLM's `maxOpenShiftVersion()`, which blocks cluster upgrades.

Fix: keep exactly one declaration.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import clip, vstr
from .. import define, refusal
from ..lib.versions_common import OLM_MAX

RULE = define("max-ocp-version-ambiguous", "olm.maxOpenShiftVersion is declared more than once", __doc__, category="version", refused_by=[
    refusal("cluster-upgrade", "OLM refuses more than one olm.maxOpenShiftVersion (\"defining more than one ... is not allowed\") and "
            "marks the cluster not upgradeable",
            OLM_MAX),
])


@RULE.check
def max_ocp_version_ambiguous(bundle: Bundle, ctx: Context):
    decls = bundle.versions.max_ocp_decls
    if len(decls) > 1:
        places = "; ".join(f"{d.file.rel}:{d.node.line} ({'CSV olm.properties' if d.where == 'csv-olm-properties' else 'properties.yaml'}: {d.raw})" for d in decls)
        valid = [d.version for d in decls if d.version is not None]
        older = f"; older OLM releases take the highest, {vstr(max(valid))}" if valid else ""
        for d in decls[1:]:
            yield RULE.at(d.file, d.node,
                          f"olm.maxOpenShiftVersion is declared {len(decls)} times ({', '.join(clip(x.raw, 20) for x in decls)})",
                          detail=f"The declarations: {places}. Today's OLM refuses more than one declaration, reports the CSV as "
                          f"invalid and blocks every minor cluster upgrade{older}. Keep exactly one.")
