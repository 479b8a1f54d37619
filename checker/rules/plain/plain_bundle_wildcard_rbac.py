"""
What: a Role or ClusterRole rule with `*` in apiGroups, resources or verbs, bound (by a
RoleBinding or ClusterRoleBinding in the bundle) to the service account a Deployment of
the bundle runs as.

Why: the plain-bundle design refuses wildcard permissions for the operator: OLM cannot
tell what the operator needs (it infers required APIs from RBAC), and `*` grants
everything, including APIs added later.

Fix: list the groups, resources and verbs the operator uses.

Bad:
    rules:
      - apiGroups: ["*"]
        resources: ["*"]
        verbs: ["*"]
Good:
    rules:
      - apiGroups: ["example.com"]
        resources: ["widgets"]
        verbs: ["get", "list", "watch"]

"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping
from .. import define, refusal
from ..lib.plain import DESIGN, DESIGN_QUOTE, K8S_V1_SEVERITY, bindings, plain_kind, rbac_rules, scalars

RULE = define("plain-bundle-wildcard-rbac", "RBAC with '*' bound to the service account of a plain bundle's Deployment",
              __doc__ + K8S_V1_SEVERITY, category="plain", refused_by=[
                  refusal("opm", "the k8s+v1 validators the plain-bundle design adds to opm refuse wildcard RBAC bound to "
                          "the service account of the bundle's Deployments (\"disallowed in k8s+v1 bundles\") "
                          f"{DESIGN_QUOTE}", DESIGN)])


def _service_accounts(bundle: Bundle) -> set:
    """The names of the service accounts the bundle's Deployments run as."""
    sas = set()
    for d in bundle.manifests:
        if d.kind != "Deployment":
            continue
        spec = d.spec()
        tpl = spec.get("template") if spec is not None else None
        ps = tpl.get("spec") if isinstance(tpl, Mapping) else None
        sa = None
        if isinstance(ps, Mapping):
            sa = ps.str("serviceAccountName") or ps.str("serviceAccount")
        sas.add(sa or "default")
    return sas


@RULE.check
def plain_bundle_wildcard_rbac(bundle: Bundle, ctx: Context):
    kind = plain_kind(bundle)
    if kind is None or not bundle.readable:
        return
    roles = {(m.kind, m.name): m for m in bundle.manifests if m.kind in ("Role", "ClusterRole") and m.name}
    sa_names = _service_accounts(bundle)
    reported = set()
    for b, role_kind, name, subs in bindings(bundle):
        bound = [sa for sa, _ns in subs if sa in sa_names]
        if not bound:
            continue
        role = roles.get((role_kind, name))
        if role is None:
            continue
        for rule in rbac_rules(role):
            for key in ("apiGroups", "resources", "verbs"):
                for x in scalars(rule, key):
                    if x.value == "*" and (role.file.rel, x.line, x.col) not in reported:
                        reported.add((role.file.rel, x.line, x.col))
                        yield RULE.at(role.file, x, f"{role.kind} '{role.name}' grants '*' in {key} to the operator's "
                                      f"service account '{bound[0]}'",
                                      detail="Plain bundles may not give the operator wildcard permissions (OLM infers the "
                                      f"APIs it requires from its RBAC; {b.kind} '{b.name}' binds the role). List the {key} "
                                      "it uses instead.", kind=kind)
