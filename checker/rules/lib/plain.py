"""Plain Kubernetes bundles (``k8s+v1``; ``plain+v0`` in older proposals), as the rules of
``checker/rules/plain/`` read them: whether a bundle is one and which finding kind its
gated findings take, its olm.yaml, and its RBAC (rules, bindings)."""
from __future__ import annotations

from typing import Optional

from ...model import K8S_V1, Bundle, Manifest
from ...nodes import Mapping, Scalar, Sequence
from ...publication import is_plain, olm_yaml

__all__ = ["DESIGN", "DESIGN_QUOTE", "bindings", "olm_yaml", "plain_kind", "rbac_rules", "scalars"]

DESIGN = "https://github.com/operator-framework/enhancements/blob/master/enhancements/plain-k8s-bundles.md"
# what the design says of its opm validators, quoted in the refusals of the plain rules
DESIGN_QUOTE = ("(\"New validators will be added to opm which ensure all required manifests and metadata are present "
                "and valid\")")


def plain_kind(bundle: Bundle) -> Optional[str]:
    """None when ``bundle`` is not a plain bundle; else the kind of the findings the design's
    opm validators judge: "" (the rule's default) for a bundle annotated k8s+v1, "not-k8s-v1"
    for a plain bundle recognised without that annotation (plain+v0, or olm.yaml and no CSV)."""
    if not is_plain(bundle):
        return None
    return "" if bundle.mediatype == K8S_V1 else "not-k8s-v1"


def rbac_rules(m: Manifest) -> list[Mapping]:
    """The rules (mappings) of a Role or ClusterRole manifest."""
    r = m.root.get("rules") if isinstance(m.root, Mapping) else None
    return [x for x in r if isinstance(x, Mapping)] if isinstance(r, Sequence) else []


def scalars(rule: Mapping, key: str) -> list[Scalar]:
    """The scalar items of list ``key`` of an RBAC rule."""
    v = rule.get(key)
    return [x for x in v if isinstance(x, Scalar)] if isinstance(v, Sequence) else []


def bindings(bundle: Bundle) -> list[tuple[Manifest, Optional[str], Optional[str], list[tuple[Optional[str], Optional[str]]]]]:
    """(binding manifest, role kind, role name, [(sa name, namespace)])"""
    out: list[tuple[Manifest, Optional[str], Optional[str], list[tuple[Optional[str], Optional[str]]]]] = []
    for m in bundle.manifests:
        if m.kind not in ("RoleBinding", "ClusterRoleBinding") or not isinstance(m.root, Mapping):
            continue
        ref = m.root.get("roleRef")
        kind = ref.str("kind") if isinstance(ref, Mapping) else None
        name = ref.str("name") if isinstance(ref, Mapping) else None
        subs: list[tuple[Optional[str], Optional[str]]] = []
        s = m.root.get("subjects")
        if isinstance(s, Sequence):
            for x in s:
                if isinstance(x, Mapping) and x.str("kind") == "ServiceAccount" and x.str("name"):
                    subs.append((x.str("name"), x.str("namespace")))
        out.append((m, kind, name, subs))
    return out


# The verdict every k8s+v1 rule shares, the last paragraph of each one's explanation.
K8S_V1_SEVERITY = """Severity: an error for a bundle annotated `k8s+v1`. That format exists only in the
plain-bundle design (seed 002), and the design's own gate for it is the validators it
adds to opm ("New validators will be added to `opm` which ensure all required manifests
and metadata are present and valid"): a `k8s+v1` bundle is judged by them. Today's opm
knows `registry+v1`, `plain` and `helm` only (operator-registry pkg/lib/bundle/generate.go)
and no released OLM installs `k8s+v1`. A warning for a plain bundle recognised without
that annotation (`plain+v0`, or olm.yaml and no CSV), which the design's validators do
not see.
"""
