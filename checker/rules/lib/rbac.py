"""The RBAC a bundle grants, as the rbac-* rules read it.

RBAC the operator asks for: `rbac-crd-create` and `rbac-risky`.

Where a bundle grants permissions: the CSV's `clusterPermissions` (ClusterRoles),
`permissions` (Roles in the install namespace and the target namespaces; OLM lifts them to
ClusterRoles only when the operator is installed for AllNamespaces), and ClusterRole / Role
manifests in manifests/. A Role never grants a cluster-scoped resource (CRDs, SCCs): the API
server accepts it, and the grant does nothing.

Matching follows Kubernetes RBAC: `*` in apiGroups, resources or verbs matches everything;
`resourceNames` restricts a rule to those names, and a rule with resourceNames can never
authorise `create` (the name is not known when the request is authorised).

Sources: OLM's RBAC for install modes, operator-lifecycle-manager
pkg/controller/operators/olm/operatorgroup.go (`ensureRBACInTargetNamespace`: a global
OperatorGroup lifts permissions to ClusterRoles); Kubernetes RBAC ("a Role always sets
permissions within a particular namespace"; ClusterRoles for cluster-scoped resources);
operator-framework/api pkg/validation/internal/object.go (`audit`: modifying a default SCC in
a Role/ClusterRole is an error of the *optional* object validator, which neither
`operator-sdk bundle validate` nor the community catalog's CI runs; only
`opm alpha bundle validate --optional-validators=bundle-objects` does). Default SCC names:
checker/data/default_sccs.yaml.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Optional

import yaml

from ...model import Bundle, SourceFile
from ...nodes import Mapping, Scalar, Sequence
from ...versions import clip
from .csv import csv_spec, install_modes, install_spec
from .tables import data_file
from .text import stripped


@lru_cache(maxsize=1)
def default_sccs() -> frozenset[str]:
    with open(data_file("default_sccs.yaml"), encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return frozenset(str(n) for n in data["default_sccs"])


def _string_set(node: Any) -> set[str]:
    """The string values of a list node (``strings``, as a set: a catalog has millions)."""
    if node.__class__ is not Sequence:
        return set()
    return {i.value for i in node.items if i.__class__ is Scalar and i.value.__class__ is str}


NAMESPACED_MODES = ("OwnNamespace", "SingleNamespace", "MultiNamespace")


class Grant:
    """One RBAC rule of the bundle, with where it comes from.

    ``scope`` is ``cluster`` (clusterPermissions, a ClusterRole manifest), ``permissions``
    (the CSV's permissions: a Role, lifted to a ClusterRole in AllNamespaces installs) or
    ``role`` (a Role manifest). ``cluster_wide``: the grant reaches cluster-scoped resources in
    some install (for permissions: when AllNamespaces is supported). ``namespaced_modes``: for
    permissions, the supported install modes in which OLM creates it as a Role."""

    __slots__ = ("file", "node", "source", "cluster_wide", "groups", "resources", "verbs", "names",
                 "scope", "sa", "namespaced_modes")

    def __init__(self, file: SourceFile, node: Mapping, source: str, cluster_wide: bool, scope: str = "cluster",
                 sa: Optional[str] = None, namespaced_modes: Iterable[str] = ()) -> None:
        self.file = file
        self.node = node
        self.source = source
        self.cluster_wide = cluster_wide
        self.scope = scope
        self.sa = sa
        self.namespaced_modes = tuple(namespaced_modes)
        self.groups = _string_set(node.get("apiGroups"))
        self.resources = _string_set(node.get("resources"))
        self.verbs = _string_set(node.get("verbs"))
        self.names = _string_set(node.get("resourceNames"))

    def covers(self, group: str, resource: str) -> bool:
        return (group in self.groups or "*" in self.groups) and (resource in self.resources or "*" in self.resources)

    def allows(self, *verbs: str) -> list[str]:
        if "*" in self.verbs:
            return ["*"]
        return [v for v in verbs if v in self.verbs]

    @property
    def namespaced(self) -> bool:
        """OLM creates this grant as a namespaced Role in at least one supported install mode."""
        return self.scope == "role" or bool(self.namespaced_modes)


# the last bundle's grants: both rbac rules read them (a local cache, once per bundle)
_LAST: list[Any] = [None, None]


def grants(bundle: Bundle) -> list[Grant]:
    """Every RBAC rule of the bundle (computed once per bundle: the last bundle's are kept)."""
    if _LAST[0] is not bundle:
        _LAST[0], _LAST[1] = bundle, _grants(bundle)
    kept: list[Grant] = _LAST[1]
    return kept


def _grants(bundle: Bundle) -> list[Grant]:
    out: list[Grant] = []
    cs = csv_spec(bundle)
    if cs is not None:
        csv, spec = cs
        modes = install_modes(spec)
        all_ns = modes is None or (modes.get("AllNamespaces", (False, None))[0])
        # with installModes unreadable (install-modes reports it) nothing is assumed namespaced
        ns_modes = () if modes is None else tuple(m for m in NAMESPACED_MODES if modes.get(m, (False, None))[0])
        ins = install_spec(spec)
        if ins is not None:
            for key, cluster in (("clusterPermissions", True), ("permissions", False)):
                perms = ins.get(key)
                if not isinstance(perms, Sequence):
                    continue
                for p in perms:
                    if not isinstance(p, Mapping):
                        continue
                    sa = stripped(p.get("serviceAccountName")) or "(no service account)"
                    rules = p.get("rules")
                    if not isinstance(rules, Sequence):
                        continue
                    src = (f"the CSV's clusterPermissions for service account '{sa}'" if cluster
                           else f"the CSV's permissions for service account '{sa}' (cluster-wide when installed for AllNamespaces)")
                    for r in rules:
                        if isinstance(r, Mapping):
                            if cluster:
                                out.append(Grant(csv.file, r, src, True, "cluster", sa))
                            else:
                                out.append(Grant(csv.file, r, src, all_ns, "permissions", sa, ns_modes))
    for m in bundle.manifests:
        if m.kind in ("ClusterRole", "Role") and isinstance(m.root, Mapping):
            rules = m.root.get("rules")
            if not isinstance(rules, Sequence):
                continue
            src = f"the {m.kind} '{m.name or '?'}'"
            for r in rules:
                if isinstance(r, Mapping):
                    if m.kind == "ClusterRole":
                        out.append(Grant(m.file, r, src, True, "cluster"))
                    else:
                        out.append(Grant(m.file, r, src, False, "role"))
    return out


CRD_GROUP, CRD_RESOURCE = "apiextensions.k8s.io", "customresourcedefinitions"


def _who(g: Grant) -> str:
    """Where a grant comes from, short enough for a one-sentence message (``g.source`` in full
    says more: the detail says the rest)."""
    if g.scope == "cluster" and g.sa:
        return f"the CSV's ClusterRole for '{clip(g.sa, 40)}'"
    if g.scope == "permissions":
        return f"the CSV's Role for '{clip(g.sa, 40)}'"
    return clip(g.source, 80)


def _names(names: list[str]) -> str:
    """A few names for a message; the rest counted."""
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _lifted(g: Grant) -> str:
    """The CSV's permissions are lifted to a ClusterRole in AllNamespaces installs (``g.source`` says it)."""
    return "These permissions are cluster-wide when installed for AllNamespaces. " if g.scope == "permissions" else ""
