"""RBAC the operator asks for: `rbac-crd-create` and `rbac-risky`.

Where a bundle grants permissions: the CSV's `clusterPermissions` (ClusterRoles),
`permissions` (Roles in the install namespace; OLM turns them into ClusterRoles when the
operator is installed for AllNamespaces), and ClusterRole / Role manifests in manifests/.
Cluster-scoped resources (CRDs, SCCs) can only be granted by cluster-wide rules, so
`permissions` count for them only when the CSV supports AllNamespaces, and Role manifests
never do.

Matching follows Kubernetes RBAC: `*` in apiGroups, resources or verbs matches everything;
`resourceNames` restricts a rule to those names, and a rule with resourceNames can never
authorise `create` (the name is not known when the request is authorised).

Source of the default SCC names: checker/data/default_sccs.yaml.
"""
from __future__ import annotations

import os
from functools import lru_cache

import yaml

from ..model import Bundle
from ..nodes import Mapping, Scalar, Sequence
from . import check, define, finding
from .csv_install import CAT, csv_spec, install_modes, install_spec, strings, text

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")


@lru_cache(maxsize=1)
def default_sccs() -> frozenset:
    with open(os.path.join(DATA, "default_sccs.yaml"), encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return frozenset(str(n) for n in data["default_sccs"])


def _string_set(node) -> set:
    """The string values of a list node (``strings``, as a set: a catalog has millions)."""
    if node.__class__ is not Sequence:
        return set()
    return {i.value for i in node.items if i.__class__ is Scalar and i.value.__class__ is str}


class Grant:
    """One RBAC rule of the bundle, with where it comes from."""

    __slots__ = ("file", "node", "source", "cluster_wide", "groups", "resources", "verbs", "names")

    def __init__(self, file, node, source, cluster_wide):
        self.file = file
        self.node = node
        self.source = source
        self.cluster_wide = cluster_wide
        self.groups = _string_set(node.get("apiGroups"))
        self.resources = _string_set(node.get("resources"))
        self.verbs = _string_set(node.get("verbs"))
        self.names = _string_set(node.get("resourceNames"))

    def covers(self, group: str, resource: str) -> bool:
        return (group in self.groups or "*" in self.groups) and (resource in self.resources or "*" in self.resources)

    def allows(self, *verbs) -> list:
        if "*" in self.verbs:
            return ["*"]
        return [v for v in verbs if v in self.verbs]


def grants(bundle: Bundle) -> list:
    """Every RBAC rule of the bundle (computed once per bundle, kept in ``bundle.extra``)."""
    cached = bundle.extra.get("rbac_grants")
    if cached is None:
        cached = bundle.extra["rbac_grants"] = _grants(bundle)
    return cached


def _grants(bundle: Bundle) -> list:
    out = []
    cs = csv_spec(bundle)
    if cs is not None:
        csv, spec = cs
        modes = install_modes(spec)
        all_ns = modes is None or (modes.get("AllNamespaces", (False, None))[0])
        ins = install_spec(spec)
        if ins is not None:
            for key, cluster in (("clusterPermissions", True), ("permissions", False)):
                perms = ins.get(key)
                if not isinstance(perms, Sequence):
                    continue
                for p in perms:
                    if not isinstance(p, Mapping):
                        continue
                    sa = text(p.get("serviceAccountName")) or "(no service account)"
                    rules = p.get("rules")
                    if not isinstance(rules, Sequence):
                        continue
                    src = (f"the CSV's clusterPermissions for service account '{sa}'" if cluster
                           else f"the CSV's permissions for service account '{sa}' (cluster-wide when installed for AllNamespaces)")
                    for r in rules:
                        if isinstance(r, Mapping):
                            out.append(Grant(csv.file, r, src, cluster or all_ns))
    for m in bundle.manifests:
        if m.kind in ("ClusterRole", "Role") and isinstance(m.root, Mapping):
            rules = m.root.get("rules")
            if not isinstance(rules, Sequence):
                continue
            src = f"the {m.kind} '{m.name or '?'}'"
            for r in rules:
                if isinstance(r, Mapping):
                    out.append(Grant(m.file, r, src, m.kind == "ClusterRole"))
    return out


@check("bundle")
def rbac_crd_create(bundle: Bundle, ctx):
    for g in grants(bundle):
        if not g.cluster_wide or g.names:
            continue  # a Role cannot grant CRDs; resourceNames never authorise create
        if not g.covers("apiextensions.k8s.io", "customresourcedefinitions"):
            continue
        verbs = g.allows("create")
        if not verbs:
            continue
        wide = "*" in g.groups or "*" in g.resources
        how = "a wildcard rule" if wide else "this rule"
        yield finding("rbac-crd-create", g.file, g.node,
                      f"{how} in {g.source} lets the operator create CustomResourceDefinitions (verb '{verbs[0]}'{' on all resources' if wide else ''}). "
                      "OLM installs and upgrades the CRDs a bundle ships and checks them against existing custom resources; CRDs the operator creates itself escape that, are not removed or upgraded by OLM, and can collide with other operators. "
                      "Ship the CRDs in the bundle and drop 'create' on customresourcedefinitions (get/list/watch, or update/patch on named CRDs, are enough to manage them).")


@check("bundle")
def rbac_risky(bundle: Bundle, ctx):
    defaults = default_sccs()
    for g in grants(bundle):
        if g.cluster_wide and g.covers("security.openshift.io", "securitycontextconstraints"):
            verbs = g.allows("update", "patch", "delete")
            if verbs:
                named = sorted(g.names & defaults)
                if named:
                    yield finding("rbac-risky", g.file, g.node,
                                  f"{g.source} may modify the default SecurityContextConstraints {', '.join(named)} (verb '{verbs[0]}'). "
                                  "OpenShift's default SCCs must not be changed: platform pods rely on them, upgrades reset them, and changing them weakens every workload's security. "
                                  "Remove the default names from resourceNames; create the operator's own SCC and grant 'use' of it instead.",
                                  severity="error")
                elif not g.names:
                    yield finding("rbac-risky", g.file, g.node,
                                  f"{g.source} may modify every SecurityContextConstraints object (verb '{verbs[0]}' without resourceNames), including OpenShift's default SCCs, which must never be changed. "
                                  "If the operator manages its own SCCs, keep 'create' in this rule and move update/patch/delete to a rule with resourceNames listing only those SCCs.",
                                  severity="warning")
        if g.covers("policy", "poddisruptionbudgets"):
            verbs = g.allows("create", "update", "patch")
            if verbs:
                yield finding("rbac-risky", g.file, g.node,
                              f"{g.source} may create or change PodDisruptionBudgets (verb '{verbs[0]}'). "
                              "A budget that allows no disruption blocks node drains and stalls cluster upgrades. "
                              "Usual for operators of clustered workloads; make sure the budgets the operator writes always allow at least one disruption.",
                              severity="info")


define("rbac-crd-create", "warning", "The operator may create CustomResourceDefinitions", category=CAT, explanation="""
    What: a cluster-wide RBAC rule of the bundle (the CSV's clusterPermissions; its
    permissions when it supports AllNamespaces; a ClusterRole manifest) allows `create` (or
    `*`) on `customresourcedefinitions` in group `apiextensions.k8s.io` (or `*`). Rules with
    only `patch`/`update`, rules restricted by `resourceNames` (they can never authorise
    create), and namespaced Roles (CRDs are cluster-scoped) are not reported.

    Why: OLM owns the lifecycle of the CRDs a bundle ships: it installs and upgrades them,
    checks that existing custom resources still validate, and tracks which operator owns
    which API. CRDs an operator creates at run time bypass all of that and can collide with
    other operators' APIs.

    Fix: ship the CRDs in the bundle (and own them in the CSV) and drop `create`.

    Bad:
        - apiGroups: ["apiextensions.k8s.io"]
          resources: ["customresourcedefinitions"]
          verbs: ["create", "get", "list"]
    Good:
        - apiGroups: ["apiextensions.k8s.io"]
          resources: ["customresourcedefinitions"]
          verbs: ["get", "list", "watch"]
    """)

define("rbac-risky", "error", "The operator may modify default SCCs (error; warning for all SCCs), or create/update PodDisruptionBudgets (info)",
       category=CAT, mixed=True, explanation="""
    What: a cluster-wide RBAC rule of the bundle allows `update`, `patch`, `delete` or `*` on
    `securitycontextconstraints` (group `security.openshift.io` or `*`) with the name of a
    default SCC in `resourceNames` (checker/data/default_sccs.yaml): error; the same without
    `resourceNames`, which covers every SCC including the defaults: warning (operators that
    manage their own SCCs often write it so; restricting update/delete to their SCCs' names
    is the fix). Any RBAC rule of the bundle that allows `create`, `update`, `patch` or `*`
    on `poddisruptionbudgets` (group `policy` or `*`) is information: operators of clustered
    workloads rightly manage their operands' budgets (measured on community-operators: 974
    of 7,025 bundles do, and every case read was such an operator), but reviewers should
    know. Unlike operator-sdk's validator this also reads the CSV's permissions (not only
    Role/ClusterRole manifests), wildcards, and SCC rules without resourceNames.

    Why: OpenShift's default SCCs are platform objects: changing them weakens the security
    of every workload, breaks platform pods, and upgrades reset them. PodDisruptionBudgets
    that allow no disruption block node drains and stall cluster upgrades.

    Fix: give the SCC rule `resourceNames` of the operator's own SCCs (or only `use`); keep
    PDB permissions only when the operator manages budgets for its operands.

    Bad:
        - apiGroups: ["security.openshift.io"]
          resources: ["securitycontextconstraints"]
          verbs: ["get", "update"]
    Good:
        - apiGroups: ["security.openshift.io"]
          resources: ["securitycontextconstraints"]
          resourceNames: ["example-operator-scc"]
          verbs: ["use", "update"]
    """)
