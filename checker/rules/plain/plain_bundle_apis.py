"""
What: what OLM derives from a plain bundle's manifests, per the design: provided APIs
(its CRDs; the group/version of its APIServices), required APIs (groups and resources its
RBAC uses outside the bundle's own groups and outside Kubernetes' groups: `*.k8s.io`,
the core group and apps/batch/autoscaling/policy/extensions), optional APIs (those of a
RoleBinding annotated `operators.operatorframework.io.bundle.dependency: optional`),
native APIs (`nonResourceURLs`).

Why: OLM resolves dependencies from these; a required API nothing in the catalog
provides blocks the install. Seeing the list early avoids surprises.

Fix: nothing to fix; if an API is listed as required by mistake, narrow the RBAC rule,
or mark its RoleBinding optional.
"""
from __future__ import annotations

from typing import Optional

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Sequence
from .. import define
from ..lib.plain import bindings, olm_yaml, plain_kind, rbac_rules, scalars

RULE = define("plain-bundle-apis", "The APIs OLM will infer from a plain bundle", __doc__, category="plain")
OPTIONAL_ANNOTATION = "operators.operatorframework.io.bundle.dependency"
# Kubernetes' own API groups without the .k8s.io suffix (plus the core group ""): never
# "required" from a catalog, like the *.k8s.io groups the design excludes.
BUILTIN_GROUPS = {"", "apps", "batch", "autoscaling", "policy", "extensions"}


@RULE.check
def plain_bundle_apis(bundle: Bundle, ctx: Context):
    if plain_kind(bundle) is None or not bundle.readable:
        return
    provided, own_groups = [], set()
    for m in bundle.crds:
        spec = m.spec()
        if spec is None:
            continue
        g = spec.str("group") or ""
        names = spec.get("names")
        kind = names.str("kind") if isinstance(names, Mapping) else None
        vers = spec.get("versions")
        vs = [s for s in (v.str("name") for v in vers if isinstance(v, Mapping)) if s] if isinstance(vers, Sequence) else []
        if not vs and (version := spec.str("version")):
            vs = [version]
        own_groups.add(g)
        provided.append(f"{g}/{'|'.join(vs) or '?'}/{kind or '?'}")
    for m in bundle.manifests:
        if m.kind == "APIService":
            spec = m.spec()
            if spec is not None and spec.str("group"):
                own_groups.add(spec.str("group"))
                provided.append(f"{spec.str('group')}/{spec.str('version') or '?'} (aggregated API)")
    required: set[str] = set()
    optional: set[str] = set()
    native: set[str] = set()
    roles = {(m.kind, m.name): m for m in bundle.manifests if m.kind in ("Role", "ClusterRole") and m.name}
    role_optional: dict[tuple[Optional[str], Optional[str]], bool] = {}
    for b, kind, name, _subs in bindings(bundle):
        ann = b.annotation(OPTIONAL_ANNOTATION)
        opt = ann is not None and ann.value == "optional"
        role_optional[(kind, name)] = role_optional.get((kind, name), True) and opt
    for key, role in roles.items():
        opt = role_optional.get(key, False)
        for rule in rbac_rules(role):
            for u in scalars(rule, "nonResourceURLs"):
                if isinstance(u.value, str):
                    native.add(u.value)
            groups = [g.value for g in scalars(rule, "apiGroups") if isinstance(g.value, str)]
            resources = [r.value for r in scalars(rule, "resources") if isinstance(r.value, str)]
            for g in groups:
                if g in own_groups or g in BUILTIN_GROUPS or g.endswith(".k8s.io") or g == "*":
                    continue
                for r in resources or ["*"]:
                    (optional if opt else required).add(f"{g}/{r}")
    if not (provided or required or optional or native):
        return
    sf = olm_yaml(bundle)
    where = sf if sf is not None else bundle.sub("manifests")
    parts = [f"provided: {', '.join(sorted(provided)) or 'none'}",
             f"required: {', '.join(sorted(required)) or 'none'}",
             f"optional: {', '.join(sorted(optional)) or 'none'}",
             f"native (nonResourceURLs): {', '.join(sorted(native)) or 'none'}"]
    counts = [f"{len(xs)} {name}" for name, xs in (("provided", provided), ("required", required),
                                                    ("optional", optional), ("native", native)) if xs]
    yield RULE.at(where, None, "OLM will infer these APIs from this plain bundle: " + ", ".join(counts),
                  detail="All of them: " + "; ".join(parts) + ". A required API must be provided by another operator "
                  "in the catalog, or the install waits for it.")
