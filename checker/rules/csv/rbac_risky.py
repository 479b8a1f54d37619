"""
What: an RBAC rule of the bundle (the CSV's clusterPermissions and permissions, ClusterRole
and Role manifests) that allows `update`, `patch`, `delete` or `*` on
`securitycontextconstraints` (group `security.openshift.io` or `*`) with the name of a
default SCC in `resourceNames` (checker/data/default_sccs.yaml): warning; the same without
`resourceNames` in a cluster-wide grant, which covers every SCC including the defaults:
warning (operators that manage their own SCCs often write it so; restricting
update/delete to their SCCs' names is the fix). `use` of a default SCC by name, or of every
SCC, is information: it does not change the SCC, and operators that need host access or a
fixed user rightly ask for it. Any RBAC rule that allows `create`, `update`, `patch` or `*`
on `poddisruptionbudgets` (group `policy` or `*`) is information: operators of clustered
workloads rightly manage their operands' budgets (measured on community-operators: 974 of
7,025 bundles do, and every case read was such an operator), but reviewers should know.

Severity: a warning, not an error, because nothing refuses the grant. operator-framework/api
reports "RBAC includes permission to modify default securitycontextconstraints" as an
error, but only in its optional object validator, only for Role/ClusterRole manifests, and
no pipeline runs it: `operator-sdk bundle validate` does not include it in any suite, the
community catalog's CI runs only operator-sdk, preflight only logs the SCCs a CSV asks
for, and OLM creates the grant. Only `opm alpha bundle validate
--optional-validators=bundle-objects` fails it. (Measured: 15 bundles the community catalog
accepted in its last 12 months grant update/patch/`*` on anyuid, restricted or privileged
in their CSV.)

Why: OpenShift's default SCCs are platform objects: changing them weakens the security of
every workload, breaks platform pods, and upgrades reset them. PodDisruptionBudgets that
allow no disruption block node drains and stall cluster upgrades.

Fix: give the SCC rule `resourceNames` of the operator's own SCCs (or only `use`); keep
PDB permissions only when the operator manages budgets for its operands.

Bad:
    - apiGroups: ["security.openshift.io"]
      resources: ["securitycontextconstraints"]
      resourceNames: ["privileged"]
      verbs: ["get", "update"]
Good:
    - apiGroups: ["security.openshift.io"]
      resources: ["securitycontextconstraints"]
      resourceNames: ["example-operator-scc"]
      verbs: ["use", "update"]
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define
from ..lib.rbac import Grant, _lifted, _names, _who, default_sccs, grants

RULE = define("rbac-risky", "The operator may modify default SCCs or every SCC (warning), uses a default SCC or creates/updates PodDisruptionBudgets (info)",
              __doc__, category="csv")


@RULE.check
def rbac_risky(bundle: Bundle, ctx: Context):
    defaults = default_sccs()
    for g in grants(bundle):
        if g.covers("security.openshift.io", "securitycontextconstraints"):
            yield from _scc(g, defaults)
        if g.covers("policy", "poddisruptionbudgets"):
            verbs = g.allows("create", "update", "patch")
            if verbs:
                yield RULE.at(g.file, g.node,
                              f"{_who(g)} may create or change PodDisruptionBudgets (verb '{verbs[0]}')", kind="pdb",
                              detail=_lifted(g)
                              + "A budget that allows no disruption blocks node drains and stalls cluster upgrades. Usual for "
                              "operators of clustered workloads; make sure the budgets the operator writes always allow at least one disruption.")


def _scc(g: Grant, defaults: frozenset):
    verbs = g.allows("update", "patch", "delete")
    named = sorted(g.names & defaults)
    if verbs and named:
        if g.scope == "role":
            effect = ("A Role cannot grant a cluster-scoped SCC, so the rule grants nothing, but "
                      "operator-framework/api's object validator (opm alpha bundle validate --optional-validators=bundle-objects) fails it. ")
        elif not g.cluster_wide:
            effect = ("The CSV does not support AllNamespaces, so OLM creates these permissions as Roles, which cannot grant a "
                      "cluster-scoped SCC: the rule grants nothing. ")
        else:
            effect = ""
        yield RULE.at(g.file, g.node,
                      f"{_who(g)} may modify the default SecurityContextConstraints {_names(named)} (verb '{verbs[0]}')",
                      detail=_lifted(g) + (f"The default SCCs named: {', '.join(named)}. " if len(named) > 3 else "")
                      + f"{effect}OpenShift's default SCCs must not be changed: platform pods rely on them, upgrades reset them, "
                      "and changing them weakens every workload's security. Remove the default names from resourceNames; create "
                      "the operator's own SCC and grant 'use' of it instead.")
        return
    if verbs and not g.names:
        if not g.cluster_wide:
            return  # a Role grants nothing on cluster-scoped SCCs, and names no default SCC
        yield RULE.at(g.file, g.node,
                      f"{_who(g)} may modify every SecurityContextConstraints object (verb '{verbs[0]}' without resourceNames)",
                      detail=_lifted(g)
                      + "That includes OpenShift's default SCCs, which must never be changed. If the operator manages its own "
                      "SCCs, keep 'create' in this rule and move update/patch/delete to a rule with resourceNames listing only those SCCs.")
        return
    if verbs or "use" not in g.verbs:
        return  # modifying only its own SCCs by name: fine
    used = sorted(g.names & defaults) if g.names else None
    if used:
        yield RULE.at(g.file, g.node,
                      f"{_who(g)} grants 'use' of the default SecurityContextConstraints {_names(used)}", kind="scc-use",
                      detail=f"{_lifted(g)}Pods of the service accounts bound to it may run with what "
                      f"{'these SCCs allow' if len(used) > 1 else 'this SCC allows'}{' (' + ', '.join(used) + ')' if len(used) > 3 else ''}. "
                      "Using an SCC does not change it, and operators that need host access or a fixed user rightly ask for it; "
                      "reviewers should know.")
    elif used is None:
        yield RULE.at(g.file, g.node,
                      f"{_who(g)} grants 'use' of every SecurityContextConstraints object (no resourceNames), including privileged",
                      kind="scc-use",
                      detail=_lifted(g) + "Pods of the service accounts bound to it may run privileged. Name the SCCs the pods need in resourceNames.")
