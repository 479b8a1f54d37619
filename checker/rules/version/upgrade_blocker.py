"""
What: with maxOpenShiftVersion X.Y, a cluster with this bundle installed is marked Not
Upgradeable to any minor release above X.Y.

Why: cluster admins will have to upgrade or remove the operator before they upgrade
OpenShift; make sure a newer version of the operator exists for them.

Fix: nothing, if intended; ship a version without the limit when the operator supports newer releases.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...versions import vkey
from .. import define
from ..lib.versions_common import max_first_decl, rels

RULE = define("upgrade-blocker", "maxOpenShiftVersion blocks cluster upgrades", __doc__, category="version")


@RULE.check
def upgrade_blocker(bundle: Bundle, ctx: Context):
    vi = bundle.versions
    if vi.max_ocp is None:
        return
    table = ctx.ocp
    mx = vkey(vi.max_ocp)
    first = max_first_decl(vi)
    affected = [r for r in table.releases if r.ocp in vi.ocp_versions and r.key <= mx]
    nxt = next((r for r in table.releases if r.key > mx), None)
    yield RULE.at(first.file, first.node,
                  f"maxOpenShiftVersion {vi.max_ocp} stops clusters with this version installed from upgrading past OpenShift {vi.max_ocp}",
                  ocp=affected,
                  detail=f"Such a cluster cannot upgrade{' to ' + nxt.label() + ' or later' if nxt else ''} until the operator is upgraded "
                  f"or removed{'; this applies to clusters installing it from the ' + rels(affected) + ' catalogs' if affected else ''}.")
