"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define
from ..lib.rbac import CRD_GROUP, CRD_RESOURCE, Grant, _lifted, _who, grants

RULE = define("rbac-crd-create", "The operator may create CustomResourceDefinitions, or asks for it where a Role cannot grant it",
              __doc__, category="csv")


@RULE.check
def rbac_crd_create(bundle: Bundle, ctx: Context):
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
                yield RULE.at(g.file, g.node, msg, detail=why)
                continue
            if not g.cluster_wide:
                continue  # a wildcard Role grants everything namespaced; CRDs are not the point
            # a wildcard in permissions of a CSV that also supports AllNamespaces: lifted there
        yield RULE.at(g.file, g.node,
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
