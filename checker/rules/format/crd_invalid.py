"""
What: a CustomResourceDefinition in manifests/ whose `apiVersion` is not
`apiextensions.k8s.io/v1` or `apiextensions.k8s.io/v1beta1`, or whose `spec.scope` is not
`Namespaced` or `Cluster` (or is missing or empty in a v1 CRD).

Why: operator-framework/api's bundle loader, which `operator-sdk bundle validate` (the
community pipeline) and preflight (the certified pipelines) run, decodes a CRD only under
those two apiVersions and refuses any other ("unsupported CRD version"); the cluster has no
such API either, so OLM cannot create it. The API server, and the CRD validator of
operator-framework/api that runs its validation, refuse any scope but `Namespaced` and
`Cluster` (v1 CRDs have no default scope; v1beta1 defaults to `Namespaced`).

Fix: write `apiVersion: apiextensions.k8s.io/v1` and `scope: Namespaced` or `scope: Cluster`
(the letter case matters).

Bad:
    apiVersion: apiextensions.k8s.io/v2
    kind: CustomResourceDefinition
    spec:
      scope: namespaced
Good:
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    spec:
      scope: Namespaced
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal

# operator-framework/api v0.23.0 (11a4de6c) and v0.45.0 (72d46e1d): pkg/manifests/bundleloader.go
# loadBundle ("unsupported CRD version %s for %s"); pkg/validation/internal/crd.go
# validateInternalCRD -> k8s.io/apiextensions-apiserver validation.ValidateCustomResourceDefinition
# (spec.scope: Required, or NotSupported outside Cluster/Namespaced)
API_LOADER = ("https://github.com/operator-framework/api/blob/72d46e1db6dffddc1c5747c885d845b39d3db1b2/"
              "pkg/manifests/bundleloader.go")
API_CRD = ("https://github.com/operator-framework/api/blob/72d46e1db6dffddc1c5747c885d845b39d3db1b2/"
           "pkg/validation/internal/crd.go")
CRD_VERSIONS = ("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1")
SCOPES = ("Namespaced", "Cluster")

RULE = define("crd-invalid", "A CRD has an apiVersion or a scope the bundle loader and the API server refuse", __doc__,
              category="format", refused_by=[
                  refusal("certification", "operator-framework/api's bundle loader (operator-sdk bundle validate, preflight) "
                          "refuses a CRD under another apiVersion (\"unsupported CRD version\")", API_LOADER),
                  refusal("api-server", "the API server and operator-framework/api's CRD validator refuse a scope other "
                          "than Namespaced or Cluster", API_CRD),
              ])


@RULE.check
def crd_invalid(bundle: Bundle, ctx: Context):
    for m in bundle.crds:
        av = m.api_version
        if av is None or not av:
            continue  # manifest-invalid reports it
        if av not in CRD_VERSIONS:
            node = m.root.get("apiVersion")
            yield RULE.at(m.file, node, f"the CustomResourceDefinition has the apiVersion '{av}'", kind="api-version",
                          detail="operator-framework/api's bundle loader decodes a CRD only as apiextensions.k8s.io/v1 or "
                          "v1beta1 and refuses the bundle (\"unsupported CRD version\"), and the cluster has no such API. "
                          "Write 'apiextensions.k8s.io/v1'.")
            continue
        spec = m.spec()
        if spec is None:
            continue
        scope = spec.get("scope")
        if scope is None or (isinstance(scope, Scalar) and scope.value in (None, "")):
            # v1beta1 defaults an empty scope to Namespaced (SetDefaults_CustomResourceDefinitionSpec,
            # which the API server and operator-framework/api's validateV1Beta1CRD both apply); v1 has no default
            if av == "apiextensions.k8s.io/v1":
                yield RULE.at(m.file, scope if scope is not None else spec, "the CustomResourceDefinition has no spec.scope",
                              detail="An apiextensions.k8s.io/v1 CRD must say its scope (v1beta1 defaulted it to "
                              "Namespaced); the API server refuses it. Add 'scope: Namespaced' or 'scope: Cluster'.")
            continue
        value = scope.value if isinstance(scope, Scalar) else None
        if value in SCOPES:
            continue
        shown = scope.raw if isinstance(scope, Scalar) else scope.type_name()
        hint = ""
        if isinstance(value, str):
            fix = next((s for s in SCOPES if s.lower() == value.strip().lower()), None)
            hint = f" Write '{fix}' (the case matters)." if fix else ""
        yield RULE.at(m.file, scope, f"the CRD scope '{shown}' is neither Namespaced nor Cluster",
                      detail="The API server refuses the CustomResourceDefinition (spec.scope: Unsupported value), and so "
                      "does operator-framework/api's CRD validator." + (hint or " Write 'Namespaced' or 'Cluster'."))
