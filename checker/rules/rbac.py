"""RBAC the operator asks for: `rbac-crd-create` and `rbac-risky`.

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

import os
from functools import lru_cache

import yaml

from ..model import Bundle
from ..nodes import Mapping, Scalar, Sequence
from ..versions import clip
from . import check, define, finding
from .lib.csv import csv_spec, install_modes, install_spec
from .lib.text import stripped

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

    def __init__(self, file, node, source, cluster_wide, scope="cluster", sa=None, namespaced_modes=()):
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

    def allows(self, *verbs) -> list:
        if "*" in self.verbs:
            return ["*"]
        return [v for v in verbs if v in self.verbs]

    @property
    def namespaced(self) -> bool:
        """OLM creates this grant as a namespaced Role in at least one supported install mode."""
        return self.scope == "role" or bool(self.namespaced_modes)


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


def _names(names: list) -> str:
    """A few names for a message; the rest counted."""
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _lifted(g: Grant) -> str:
    """The CSV's permissions are lifted to a ClusterRole in AllNamespaces installs (``g.source`` says it)."""
    return "These permissions are cluster-wide when installed for AllNamespaces. " if g.scope == "permissions" else ""


@check("bundle")
def rbac_crd_create(bundle: Bundle, ctx):
    gs = grants(bundle)
    # service accounts that may create CRDs cluster-wide in every install (clusterPermissions)
    cluster_sas = {g.sa for g in gs if g.scope == "cluster" and g.sa and not g.names
                   and g.covers(CRD_GROUP, CRD_RESOURCE) and g.allows("create")}
    for g in gs:
        if g.names or not g.covers(CRD_GROUP, CRD_RESOURCE):
            continue  # resourceNames never authorise create
        verbs = g.allows("create")
        if not verbs:
            continue
        # a general wildcard, not a rule about CRDs: `apiGroups: ["*"]` or `resources: ["*"]` in some
        # other group. `resources: ["*"]` in apiextensions.k8s.io (whose only resource is
        # customresourcedefinitions) is about CRDs, as operator-framework/api's
        # validateRBACForCRDsWith reads it (good_practices.go, v0.23.0).
        wide = CRD_GROUP not in g.groups and CRD_RESOURCE not in g.resources
        how = "a wildcard rule" if wide else "this rule"
        if g.namespaced:
            if g.scope == "permissions" and g.sa in cluster_sas:
                continue  # the same account has it in clusterPermissions: reported there
            if not wide:
                msg, why = _namespaced_crd_message(g, verbs[0])
                yield finding("rbac-crd-create", g.file, g.node, msg, detail=why)
                continue
            if not g.cluster_wide:
                continue  # a wildcard Role grants everything namespaced; CRDs are not the point
            # a wildcard in permissions of a CSV that also supports AllNamespaces: lifted there
        yield finding("rbac-crd-create", g.file, g.node,
                      f"{how} in {_who(g)} lets the operator create CustomResourceDefinitions (verb '{verbs[0]}'{' on all resources' if wide else ''})",
                      detail=_lifted(g)
                      + "OLM installs and upgrades the CRDs a bundle ships and checks them against existing custom resources; CRDs "
                      "the operator creates itself escape that, are not removed or upgraded by OLM, and can collide with other "
                      "operators. operator-sdk's good-practices check (validateRBACForCRDsWith), run by the community catalog CI, "
                      "warns on it too. Ship the CRDs in the bundle and drop 'create' on customresourcedefinitions (get/list/watch, "
                      "or update/patch on named CRDs, are enough to manage them).")


def _namespaced_crd_message(g: Grant, verb: str) -> tuple:
    """(message, detail) for a grant of create on CRDs that a namespaced Role holds."""
    if g.scope == "role":
        msg = f"{_who(g)} is a namespaced Role: its '{verb}' on customresourcedefinitions grants nothing"
        why = ("CustomResourceDefinitions are cluster-scoped, and a Role cannot grant them; the API server and OLM accept the "
               "Role without complaint, and the operator gets 'forbidden' when it tries to create a CRD. Grant it in the CSV's "
               "clusterPermissions (or a ClusterRole), or better ship the CRDs in the bundle and drop 'create'.")
        return msg, why
    modes = ", ".join(g.namespaced_modes)
    msg = f"'{verb}' on customresourcedefinitions in {_who(g)} grants nothing in {modes} installs"
    why = ("There OLM creates permissions as namespaced Roles, and a Role cannot grant cluster-scoped CustomResourceDefinitions: "
           "neither the API server nor OLM refuses it, and the operator gets 'forbidden' at run time when it creates a CRD. ")
    if not g.cluster_wide:
        why += "The CSV does not support AllNamespaces, so the operator never gets this permission. "
    else:
        why += ("In AllNamespaces installs OLM lifts it to a ClusterRole, and there the operator may create CRDs that OLM "
                "neither upgrades nor removes. ")
    why += ("Move the rule to clusterPermissions if the operator must create CRDs, or better ship the CRDs in the bundle "
            "and drop 'create'.")
    return msg, why


@check("bundle")
def rbac_risky(bundle: Bundle, ctx):
    defaults = default_sccs()
    for g in grants(bundle):
        if g.covers("security.openshift.io", "securitycontextconstraints"):
            yield from _scc(g, defaults)
        if g.covers("policy", "poddisruptionbudgets"):
            verbs = g.allows("create", "update", "patch")
            if verbs:
                yield finding("rbac-risky", g.file, g.node,
                              f"{_who(g)} may create or change PodDisruptionBudgets (verb '{verbs[0]}')", severity="info",
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
        yield finding("rbac-risky", g.file, g.node,
                      f"{_who(g)} may modify the default SecurityContextConstraints {_names(named)} (verb '{verbs[0]}')",
                      severity="warning",
                      detail=_lifted(g) + (f"The default SCCs named: {', '.join(named)}. " if len(named) > 3 else "")
                      + f"{effect}OpenShift's default SCCs must not be changed: platform pods rely on them, upgrades reset them, "
                      "and changing them weakens every workload's security. Remove the default names from resourceNames; create "
                      "the operator's own SCC and grant 'use' of it instead.")
        return
    if verbs and not g.names:
        if not g.cluster_wide:
            return  # a Role grants nothing on cluster-scoped SCCs, and names no default SCC
        yield finding("rbac-risky", g.file, g.node,
                      f"{_who(g)} may modify every SecurityContextConstraints object (verb '{verbs[0]}' without resourceNames)",
                      severity="warning",
                      detail=_lifted(g)
                      + "That includes OpenShift's default SCCs, which must never be changed. If the operator manages its own "
                      "SCCs, keep 'create' in this rule and move update/patch/delete to a rule with resourceNames listing only those SCCs.")
        return
    if verbs or "use" not in g.verbs:
        return  # modifying only its own SCCs by name: fine
    used = sorted(g.names & defaults) if g.names else None
    if used:
        yield finding("rbac-risky", g.file, g.node,
                      f"{_who(g)} grants 'use' of the default SecurityContextConstraints {_names(used)}", severity="info",
                      detail=f"{_lifted(g)}Pods of the service accounts bound to it may run with what "
                      f"{'these SCCs allow' if len(used) > 1 else 'this SCC allows'}{' (' + ', '.join(used) + ')' if len(used) > 3 else ''}. "
                      "Using an SCC does not change it, and operators that need host access or a fixed user rightly ask for it; "
                      "reviewers should know.")
    elif used is None:
        yield finding("rbac-risky", g.file, g.node,
                      f"{_who(g)} grants 'use' of every SecurityContextConstraints object (no resourceNames), including privileged",
                      severity="info",
                      detail=_lifted(g) + "Pods of the service accounts bound to it may run privileged. Name the SCCs the pods need in resourceNames.")


define("rbac-crd-create", "warning", "The operator may create CustomResourceDefinitions, or asks for it where a Role cannot grant it",
       category="csv", explanation="""
    What: an RBAC rule of the bundle allows `create` (or `*`) on `customresourcedefinitions`
    (or `*`) in group `apiextensions.k8s.io` (or `*`), without `resourceNames` (a rule
    restricted by name can never authorise create; `patch`/`update` alone cannot create: the
    API server authorises an apply that creates an object as a create).
    operator-framework/api's `validateRBACForCRDsWith` (good_practices.go, v0.23.0 — operator-sdk
    v1.36.1, community catalog CI — and v0.45.0) warns on the group `apiextensions.k8s.io` with
    resource `customresourcedefinitions` or `*` and verb `create`, `*` or `patch`, in
    permissions or clusterPermissions.
    - In a cluster-wide grant (the CSV's clusterPermissions; its permissions when the CSV
      supports only AllNamespaces, which OLM then lifts to a ClusterRole; a ClusterRole
      manifest): the operator may create CRDs itself.
    - In a namespaced grant (the CSV's permissions when it supports OwnNamespace,
      SingleNamespace or MultiNamespace; a Role manifest): OLM creates it as a Role, and a
      Role cannot grant a cluster-scoped resource. The API server and OLM accept the Role, the
      grant does nothing, and the operator gets "forbidden" when it creates a CRD. Not
      reported when the same service account already has it in clusterPermissions.

    Why: OLM owns the lifecycle of the CRDs a bundle ships: it installs and upgrades them,
    checks that existing custom resources still validate, and tracks which operator owns
    which API. CRDs an operator creates at run time bypass all of that and can collide with
    other operators' APIs. A namespaced grant of it is a permission the operator believes it
    has and does not.

    Severity: a warning, never an error: nothing refuses either form (the API server stores a
    Role naming a cluster-scoped resource; OLM's requirement check passes it; catalog CI does
    not read RBAC rules); the namespaced form fails only at run time, and only if the operator
    really creates CRDs.

    Fix: ship the CRDs in the bundle (and own them in the CSV) and drop `create`; if the
    operator must create CRDs, grant it in clusterPermissions.

    Bad:
        permissions:                      # installModes: OwnNamespace only
          - serviceAccountName: example-operator
            rules:
              - apiGroups: ["apiextensions.k8s.io"]
                resources: ["customresourcedefinitions"]
                verbs: ["create", "get", "list"]
    Good:
        clusterPermissions:
          - serviceAccountName: example-operator
            rules:
              - apiGroups: ["apiextensions.k8s.io"]
                resources: ["customresourcedefinitions"]
                verbs: ["get", "list", "watch"]
    """)

define("rbac-risky", "warning", "The operator may modify default SCCs or every SCC (warning), uses a default SCC or creates/updates PodDisruptionBudgets (info)",
       category="csv", mixed=True, explanation="""
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
    """)
