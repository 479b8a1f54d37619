"""
What: the manifests of a plain bundle hold no `Deployment` (apps/v1).

Why: the design takes the operator's workload from its Deployment(s): without one there
is no operator to run, and nothing to bind RBAC to.

Fix: add the operator's Deployment to manifests/.

"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.plain import DESIGN, DESIGN_QUOTE, K8S_V1_SEVERITY, plain_kind

RULE = define("plain-bundle-deployment", "A plain bundle has no Deployment for the operator", __doc__ + K8S_V1_SEVERITY, category="plain", refused_by=[
                  refusal("opm", "the k8s+v1 validators the plain-bundle design adds to opm refuse a k8s+v1 bundle without "
                          f"a Deployment for the operator, which the design ALWAYS requires {DESIGN_QUOTE}", DESIGN)])


@RULE.check
def plain_bundle_deployment(bundle: Bundle, ctx: Context):
    kind = plain_kind(bundle)
    if kind is None or not bundle.readable:
        return
    deployments = [m for m in bundle.manifests if m.kind == "Deployment"]
    if not deployments and bundle.manifest_files:
        yield RULE.at(bundle.sub("manifests"), None,
                      "the plain bundle has no Deployment in manifests/: there is no operator workload for OLM to run",
                      detail="Add the operator's Deployment (apps/v1).", kind=kind)
