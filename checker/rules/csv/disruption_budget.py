"""
What: a PodDisruptionBudget in the bundle with `maxUnavailable: 0` (or `"0%"`) or
`minAvailable: "100%"`; a PriorityClass in the bundle with `globalDefault: true`.
(A percentage such as `maxUnavailable: "50%"` is fine: operator-sdk's validator reads any
string value as 0 and reports it; olm-check does not.)

Why: OLM documents these limits for the objects it installs from a bundle. A budget that
allows no disruption makes node drains hang, which stalls cluster upgrades and machine
maintenance. A global-default PriorityClass changes the priority of every pod in the
cluster, not only the operator's. Refused by operator-framework/api's object validator
(operator-sdk bundle validate), and a budget without evictions blocks cluster upgrades.

Fix: allow at least one disruption; set `globalDefault: false` and use
`priorityClassName` in the operator's pods.

Bad:
    kind: PodDisruptionBudget
    spec:
      maxUnavailable: 0
Good:
    kind: PodDisruptionBudget
    spec:
      maxUnavailable: 1
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar
from ...versions import clip
from .. import define, refusal
from ..lib.fixes import fix_value

RULE = define("disruption-budget", "A bundled PodDisruptionBudget blocks every eviction, or a bundled PriorityClass is the cluster default",
              __doc__, category="csv", refused_by=[
                  refusal("catalog-ci", "operator-framework/api's object validator (operator-sdk bundle validate) errors on a PDB with "
                          "maxUnavailable 0/0% or minAvailable 100% and on a PriorityClass with globalDefault: true",
                          "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/object.go"),
                  refusal("cluster-upgrade", "a PDB that allows no eviction makes nodes impossible to drain and blocks operator and cluster "
                          "upgrades (OLM's documented limit for bundled PDBs)",
                          "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/doc/design/adding-pod-disruption-budgets.md"),
              ])


def _pdb_zero(node) -> bool:
    if not isinstance(node, Scalar) or isinstance(node.value, bool):
        return False
    v = node.value
    if isinstance(v, int):
        return v == 0
    if isinstance(v, str):
        return v.strip() in ("0", "0%")
    return False


def _pdb_full(node) -> bool:
    return isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip() == "100%"


@RULE.check
def disruption_budget(bundle: Bundle, ctx: Context):
    for m in bundle.manifests:
        kind = m.kind
        if kind == "PodDisruptionBudget":
            spec = m.spec()
            if spec is None:
                continue
            mu = spec.get("maxUnavailable")
            if _pdb_zero(mu):
                yield RULE.at(m.file, mu,
                              f"PodDisruptionBudget '{clip(m.name or '?')}' sets maxUnavailable to {clip(mu.raw)}: no pod may ever be evicted",
                              detail="Node drains hang and cluster upgrades stall (OLM's documented limit for bundled PDBs). "
                              "Allow at least one disruption (maxUnavailable: 1), or use minAvailable below the replica count.")
            ma = spec.get("minAvailable")
            if _pdb_full(ma):
                yield RULE.at(m.file, ma,
                              f"PodDisruptionBudget '{clip(m.name or '?')}' sets minAvailable to 100%: no pod may ever be evicted",
                              detail="Node drains hang and cluster upgrades stall (OLM's documented limit for bundled PDBs). "
                              "Use a lower percentage or count (e.g. minAvailable: 1 with 2 or more replicas), or maxUnavailable: 1.")
        elif kind == "PriorityClass" and isinstance(m.root, Mapping):
            gd = m.root.get("globalDefault")
            if isinstance(gd, Scalar) and gd.value is True:
                yield RULE.at(m.file, gd,
                              f"PriorityClass '{clip(m.name or '?')}' sets globalDefault: true, the priority of every pod in the cluster",
                              fix=fix_value(m.file, gd, "false", "globalDefault: false"),
                              detail="It would become the priority of every pod created without a priorityClassName, not only the "
                              "operator's (OLM's documented limit for bundled PriorityClasses). Set globalDefault: false and reference "
                              "the class by priorityClassName in the operator's pods.")
