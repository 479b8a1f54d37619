"""
What: an `APIService` (`spec.service`) or a `Validating/MutatingWebhookConfiguration`
(`webhooks[].clientConfig.service`) of a plain bundle names a Service that is not among
the bundle's manifests.

Why: OLM installs only what the bundle holds; the API server would send API or webhook
calls to a Service that does not exist, and every request to that API, or every object
the webhook matches, fails.

Fix: add the Service (selecting the operator's Deployment pods) or correct the name.

"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from .. import define, refusal
from ..lib.plain import DESIGN, DESIGN_QUOTE, K8S_V1_SEVERITY, plain_kind

RULE = define("plain-bundle-service", "An APIService or webhook configuration names a Service the plain bundle does not have",
              __doc__ + K8S_V1_SEVERITY, category="plain", refused_by=[
                  refusal("opm", "the k8s+v1 validators the plain-bundle design adds to opm refuse an APIService or webhook "
                          f"configuration without the Service it references, which the design requires {DESIGN_QUOTE}",
                          DESIGN)])


@RULE.check
def plain_bundle_service(bundle: Bundle, ctx: Context):
    kind = plain_kind(bundle)
    if kind is None or not bundle.readable:
        return
    services = {m.name for m in bundle.manifests if m.kind == "Service" and m.name}
    for m in bundle.manifests:
        if not isinstance(m.root, Mapping):
            continue
        if m.kind == "APIService":
            spec = m.spec()
            svc = spec.get("service") if spec is not None else None
            n = svc.get("name") if isinstance(svc, Mapping) else None
            if isinstance(n, Scalar) and isinstance(n.value, str) and n.value not in services:
                yield RULE.at(m.file, n, f"APIService '{m.name}' sends its API to Service '{n.value}', which is not in the "
                              "bundle",
                              detail="OLM installs only what the bundle holds, so every request to "
                              f"{spec.str('group') or 'the API'} would fail. Add the Service to manifests/ or correct the "
                              "name.", kind=kind)
        elif m.kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
            hooks = m.root.get("webhooks")
            for h in hooks if isinstance(hooks, Sequence) else []:
                if not isinstance(h, Mapping):
                    continue
                cc = h.get("clientConfig")
                svc = cc.get("service") if isinstance(cc, Mapping) else None
                n = svc.get("name") if isinstance(svc, Mapping) else None
                if isinstance(n, Scalar) and isinstance(n.value, str) and n.value not in services:
                    yield RULE.at(m.file, n, f"webhook '{h.str('name') or '?'}' calls Service '{n.value}', which is not "
                                  "in the bundle",
                                  detail=f"It is a webhook of {m.kind} '{m.name}', and the API server would fail every "
                                  "request the webhook matches. Add the Service to manifests/ or correct the name.",
                                  kind=kind)
