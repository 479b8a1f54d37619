"""
What: a NetworkPolicy (networking.k8s.io) in manifests/.

Why: Red Hat's catalog pipelines (operator-pipelines, static check
`check_network_policy_presence`, among the checks common to the community and the
certified streams) fail every bundle that ships one, so it is an error in the `community`
and `certified` profiles. OLM itself installs NetworkPolicies only from OLM v0.32 (OpenShift
4.20, and late z-streams of 4.12-4.19: see `unsupported-manifest-kind`); OperatorHub.io is
not known to refuse them, but clusters running an older OLM do, hence a warning in the
`operatorhub` profile. The `minimal` profile (bundle format only) does not check it.

Fix: remove the NetworkPolicy from the bundle; let the operator create the policies it
needs at run time, or document them for the cluster administrator.

Bad:
    # manifests/allow-metrics.yaml
    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: allow-metrics
Good:
    (no NetworkPolicy in manifests/)
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from .. import define, refusal

RULE = define("network-policy", "A NetworkPolicy in the bundle (catalog policy)", __doc__, category="format", refused_by=[
    refusal("catalog-ci", "operator-pipelines' static check check_network_policy_presence (common suite, run with "
            "the community suite by default) fails a bundle with a networking.k8s.io NetworkPolicy",
            "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/common/bundle.py"),
    refusal("certification", "the same static check runs in the certified stream's pipeline",
            "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/docs/users/static_checks.md"),
])


@RULE.check
def network_policy(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return  # plain (k8s+v1) bundles may hold any kind
    for m in bundle.manifests:
        kind = m.kind
        if not kind:
            continue  # manifest-invalid says why
        knode = m.root.get("kind")
        if kind == "NetworkPolicy" and m.group in ("networking.k8s.io", "extensions"):
            why = ("Red Hat's catalog pipelines (static check check_network_policy_presence, common suite) reject "
                   "bundles with a NetworkPolicy, and OLM before v0.32 cannot install one")
            yield RULE.at(m.file, knode,
                          f"the bundle ships NetworkPolicy '{m.name or '?'}'",
                          detail=f"{why[0].upper() + why[1:]}. Remove it and let the operator create the policies it "
                          "needs at run time.")
