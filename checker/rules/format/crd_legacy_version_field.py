"""
What: an `apiextensions.k8s.io/v1` CustomResourceDefinition with `spec.version` next to
`spec.versions`. `spec.version` exists only in `apiextensions.k8s.io/v1beta1` (the single
version of early CRDs); the v1 type has no such field.

Why: OLM decodes a bundle's CRDs into the v1 type without strict field checking
(operator-lifecycle-manager pkg/lib/crd/unmarshal.go) and sends what it decoded, so the
field is dropped silently; `operator-sdk bundle validate` decodes the same way. The line
only misleads readers (it may name a version the CRD no longer stores), and
`kubectl apply`, whose default field validation is strict since Kubernetes 1.25, rejects
the file ("unknown field"). A warning: nothing in the catalog or OLM refuses it. Without
`spec.versions` the CRD has no version at all: the API server rejects it, reported by
`crd-owned-version` as an error.

Fix: delete `spec.version`.

Bad:
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    spec:
      version: v1alpha1
      versions:
        - {name: v1alpha1, served: true, storage: true, schema: ...}
Good:
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    spec:
      versions:
        - {name: v1alpha1, served: true, storage: true, schema: ...}
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from .. import define
from ..lib.crds import V1_CRD, Crd, bundle_crds, first_crds

RULE = define("crd-legacy-version-field", "A v1 CRD carries the v1beta1 field spec.version", __doc__, category="format")


@RULE.check
def crd_legacy_version_field(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return
    _, firsts = first_crds(bundle_crds(bundle))
    for c in firsts:
        yield from _legacy_version(c)


def _legacy_version(c: Crd):
    """spec.version beside spec.versions in a v1 CRD (where crd-owned-version reads the versions)."""
    spec = c.spec
    if spec is None:
        return
    vers = spec.get("versions")
    legacy = spec.get("version")
    v1 = c.m.api_version == V1_CRD
    if vers is None and (legacy is None or v1):
        return  # crd-owned-version: no versions
    if v1 and legacy is not None:
        yield RULE.at(c.m.file, spec.key_node("version") or legacy,
                      f"the apiextensions.k8s.io/v1 CRD {c.name} carries spec.version, a field only v1beta1 has",
                      detail="v1 knows only spec.versions. OLM decodes the CRD into the v1 type and drops the field silently, so "
                      "it has no effect (kubectl apply, which validates fields strictly by default since Kubernetes 1.25, rejects "
                      "the file: unknown field \"spec.version\"). Delete the line; spec.versions says which versions exist.")
