"""
What: every container of the deployments in the CSV's install strategy
(`spec.install.spec.deployments[].spec.template.spec.containers[]`) should request CPU
and memory. A limit without a request counts as a request (Kubernetes copies the limit
into it), so only containers with neither are reported; operator-sdk's good-practices
validator, by contrast, only notices a container whose `requests` are missing altogether.

Why: a pod without requests is scheduled as if it needed nothing; when the node runs
short the kubelet evicts it early (first of all when no container of the pod sets any
request or limit: a BestEffort pod; otherwise its use counts as beyond its request); and
it cannot be created at all in namespaces whose ResourceQuota covers CPU or memory unless
a LimitRange gives defaults (the Operator SDK best practices, "Managing resources";
Kubernetes, "Node-pressure eviction" and "Resource quotas").

Fix: add `resources.requests` with what the operator needs.

Bad:
    containers:
      - name: manager
        image: quay.io/example/operator@sha256:...
Good:
    containers:
      - name: manager
        image: quay.io/example/operator@sha256:...
        resources:
          requests:
            cpu: 10m
            memory: 64Mi
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...versions import clip
from .. import define
from ..lib.csv import csv_spec, deployments
from ..lib.text import stripped

RULE = define("resource-requests", "A container of the CSV's deployments has no CPU or memory request", __doc__, category="csv")


@RULE.check
def resource_requests(bundle: Bundle, ctx: Context):
    cs = csv_spec(bundle)
    if cs is None:
        return
    csv, spec = cs
    sf = csv.file
    for dname, dep in deployments(spec):
        ds = dep.get("spec")
        tmpl = ds.get("template") if isinstance(ds, Mapping) else None
        ps = tmpl.get("spec") if isinstance(tmpl, Mapping) else None
        if not isinstance(ps, Mapping):
            continue
        containers = ps.get("containers")
        if not isinstance(containers, Sequence):
            continue
        # a pod none of whose containers sets a CPU or memory request or limit is BestEffort
        # (the kubelet evicts such pods first); otherwise the unset resource counts as used
        # beyond the request, which ranks the pod early for eviction
        best_effort = not any(_sets_resources(c) for key in ("containers", "initContainers")
                              for c in (ps.get(key) if isinstance(ps.get(key), Sequence) else ()))
        evicted = ("the pod is BestEffort, the first the kubelet evicts under node pressure" if best_effort else
                   "what it uses counts as beyond its request, which ranks the pod early for eviction under node pressure")
        for c in containers:
            if not isinstance(c, Mapping):
                continue
            cname = clip(stripped(c.get("name")) or "(unnamed)")
            res = c.get("resources")
            missing = [word for r, word in (("cpu", "CPU"), ("memory", "memory")) if not _sets(c, r)]
            if not missing:
                continue
            node = c.key_node("resources") if isinstance(res, Mapping) and c.key_node("resources") is not None else c.key_node("name") or c
            what = " and ".join(missing)
            yield RULE.at(sf, node,
                          f"container '{cname}' of deployment '{clip(dname or '(unnamed)')}' requests no {what}",
                          detail=f"It sets no {what} limit either, which Kubernetes would copy into the request. Without requests the "
                          f"scheduler cannot place the pod sensibly, {evicted}, and a namespace whose ResourceQuota covers "
                          f"{what.lower()} refuses the pod unless a LimitRange gives defaults. Add resources.requests."
                          f"{' and resources.requests.'.join(m.lower() for m in missing)} with what the operator needs (e.g. cpu: 10m, memory: 64Mi).")


def _sets(c, r: str) -> bool:
    """Whether a container sets a request or a limit (copied into the request) of resource ``r``."""
    res = c.get("resources") if isinstance(c, Mapping) else None
    return isinstance(res, Mapping) and any(isinstance(res.get(k), Mapping) and _quantity(res.get(k).get(r))
                                            for k in ("requests", "limits"))


def _sets_resources(c) -> bool:
    """Whether a container sets a CPU or memory request or limit (its pod is then not BestEffort)."""
    return _sets(c, "cpu") or _sets(c, "memory")


def _quantity(node) -> bool:
    """A resource quantity is set (a non-empty string or a number)."""
    if not isinstance(node, Scalar) or isinstance(node.value, bool) or node.value is None:
        return False
    if isinstance(node.value, (int, float)):
        return True
    return isinstance(node.value, str) and node.value.strip() != ""
