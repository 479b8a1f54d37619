"""
What: a `spec.webhookdefinitions` entry (admission webhooks; conversion webhooks are not
concerned) whose `admissionReviewVersions` lacks `v1`: a warning. An error when the list
is missing, empty, or names no version the API server accepts.

Why: the v1beta1 AdmissionReview is deprecated; `v1` is the version every current
webhook library serves. Kubernetes 1.22 removed the admissionregistration.k8s.io/v1beta1
*API* (the webhook configuration object), not the v1beta1 AdmissionReview format: the API
server still accepts `v1` and `v1beta1` (and `v1alpha1` from 1.26) in
admissionReviewVersions and sends the first one it understands. A list with none of them
is refused.

Refused by (error only): the API server's validation of webhook configurations
(`AcceptedAdmissionReviewVersions`, kubernetes pkg/apis/admissionregistration/validation).

Fix: accept `v1` (serve `admission.k8s.io/v1` AdmissionReview) and list it first:
    admissionReviewVersions: [v1, v1beta1]
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...versions import clip
from .. import define, refusal
from ..lib.versions_common import K8S_WEBHOOK_VALIDATION, installable_releases, rels

RULE = define("webhook-admission-review-versions", "A webhook does not accept admission.k8s.io/v1 reviews",
              __doc__, category="version", refused_by=[
    refusal("api-server", "a webhook configuration whose admissionReviewVersions names no version the API server accepts (v1, "
            "v1beta1, and v1alpha1 from Kubernetes 1.26) is refused, so OLM cannot create it",
            K8S_WEBHOOK_VALIDATION),
])


@RULE.check
def webhook_admission_review_versions(bundle: Bundle, ctx: Context):
    csv = bundle.csv
    if csv is None:
        return
    rng = installable_releases(bundle, ctx.ocp)
    spec = csv.spec()
    whs = spec.get("webhookdefinitions") if spec is not None else None
    if not isinstance(whs, Sequence) or not rng:
        return
    for wh in whs:
        if not isinstance(wh, Mapping):
            continue
        if wh.str("type") == "ConversionWebhook":
            continue  # conversion reviews are not admission reviews
        arv = wh.get("admissionReviewVersions")
        vals = [i.value for i in arv if isinstance(i, Scalar)] if isinstance(arv, Sequence) else []
        if "v1" in vals:
            continue
        where = arv if arv is not None else wh
        name = clip(wh.str("generateName") or wh.str("deploymentName") or "this webhook")
        # what the API server accepts (k8s AcceptedAdmissionReviewVersions): v1, v1beta1, v1alpha1 from 1.26
        refused = [r for r in rng if not any(v == "v1beta1" or (v == "v1alpha1" and r.kube_key >= (1, 26)) for v in vals)]
        if refused:
            listed = f"lists {', '.join(str(v) for v in vals)} in admissionReviewVersions" if vals else "has no admissionReviewVersions"
            yield RULE.at(csv.file, where,
                          f"the webhook {name} {listed}, none of which the API server accepts on OpenShift {rels(refused)}",
                          kind="refused", ocp=refused,
                          detail="The API server accepts v1 and v1beta1, and v1alpha1 from Kubernetes 1.26; it refuses the webhook "
                          "configuration, so the CSV fails to install. Serve admission.k8s.io/v1 and write admissionReviewVersions: [v1].")
        else:
            yield RULE.at(csv.file, where,
                          f"the webhook {name} does not list v1 in admissionReviewVersions", ocp=rng,
                          detail="The API server still sends it v1beta1 AdmissionReviews, but that version is deprecated. Serve "
                          "admission.k8s.io/v1 and list it first: admissionReviewVersions: [v1, v1beta1].")
