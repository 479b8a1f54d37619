"""
What: every object in manifests/ must be of a kind OLM installs from a registry+v1 bundle:
ClusterServiceVersion, CustomResourceDefinition, Secret, ConfigMap, ServiceAccount, Service,
Role, RoleBinding, ClusterRole, ClusterRoleBinding, PrometheusRule, ServiceMonitor,
PodDisruptionBudget, PriorityClass, VerticalPodAutoscaler and ConsoleYAMLSample on every
release; ConsoleQuickStart, ConsoleCLIDownload and ConsoleLink from OpenShift 4.10;
NetworkPolicy and ConsolePlugin from 4.20. NetworkPolicy was also backported to z-streams of
4.12-4.19 (4.18.23, 4.19.10, ...): on those releases it is a warning, because clusters on an
older patch release still refuse it. PodMonitor passes opm's validation but OLM does not
install it. Only `kind` counts (OLM ignores group and version when it decides); the releases
checked are those the bundle can be installed on (from its label, maxOpenShiftVersion and
minKubeVersion). The table, with the source of every entry, is checker/data/manifest_kinds.yaml.

Why: OLM's catalog operator marks the step "UnsupportedResource" and fails the whole
InstallPlan: the operator does not install at all.

Fix: remove the object from manifests/ and have the operator create it at run time; for a
Deployment, use the CSV's install strategy; for webhooks, spec.webhookdefinitions; for a kind
that is supported only from a later release, narrow com.redhat.openshift.versions to
releases that support it.

Bad:
    # manifests/operator-deployment.yaml
    apiVersion: apps/v1
    kind: Deployment
Good:
    # in the CSV
    spec:
      install:
        spec:
          deployments:
            - name: example-operator
              spec: {...}
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

import yaml

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from ...versions import release_ranges as _ranges
from ...versions import vkey
from .. import define, refusal
from ..lib.fixes import fix_value
from ..lib.tables import data_file

RULE = define("unsupported-manifest-kind", "A manifest kind OLM does not install from a registry+v1 bundle", __doc__,
              category="format", refused_by=[
    refusal("olm-install", "the catalog operator marks the step UnsupportedResource and fails the InstallPlan",
            "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/catalog/operator.go"),
    refusal("opm", "`opm alpha bundle validate` fails a registry+v1 bundle holding a kind outside its supported list",
            "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/supported_resources.go"),
])


class KindTable:
    """The supported-kinds table: kinds OLM installs everywhere, from a release on (with
    z-stream backports), and kinds refused although opm accepts them."""

    def __init__(self, data: dict):
        self.always = frozenset(str(k) for k in data.get("always") or [])
        self.since = {}  # kind -> (major, minor)
        self.zstreams = {}  # kind -> {"4.18": "4.18.23"}
        for e in data.get("kinds") or []:
            self.since[str(e["kind"])] = vkey(str(e["since"]))
            self.zstreams[str(e["kind"])] = {str(k): str(v) for k, v in (e.get("zstreams") or {}).items()}
        self.refused = {str(e["kind"]): str(e.get("reason", "")) for e in data.get("refused") or []}
        self.alternatives = {str(e["kind"]): str(e["instead"]) for e in data.get("refused") or [] if e.get("instead")}

    def known(self) -> list:
        return sorted(self.always | set(self.since))


@lru_cache(maxsize=1)
def kind_table() -> KindTable:
    with open(data_file("manifest_kinds.yaml"), encoding="utf-8") as fh:
        return KindTable(yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {})


# What to do instead, for kinds authors often put in manifests/.
_INSTEAD = {
    "Deployment": "OLM creates the operator's Deployment from the CSV's install strategy: move it to spec.install.spec.deployments",
    "Namespace": "OLM installs into the namespace the user chooses (through an OperatorGroup); suggest one with the CSV annotation operatorframework.io/suggested-namespace instead",
    "OperatorGroup": "the user (or the console) creates the OperatorGroup when installing; remove it from the bundle",
    "Subscription": "a Subscription is what installs a bundle, it cannot be part of one; declare dependencies in metadata/dependencies.yaml",
    "MutatingWebhookConfiguration": "declare the webhook in the CSV's spec.webhookdefinitions; OLM creates the configuration and its certificates",
    "ValidatingWebhookConfiguration": "declare the webhook in the CSV's spec.webhookdefinitions; OLM creates the configuration and its certificates",
    "APIService": "declare it in the CSV's spec.apiservicedefinitions.owned; OLM creates it",
    "SecurityContextConstraints": "grant access to an existing SCC through the CSV's clusterPermissions, or let the operator create the SCC at run time",
}


def _releases(bundle: Bundle, ctx) -> list:
    """The releases an install would happen on: where it is installable, else where it is published."""
    vi = bundle.versions
    names = vi.ocp_installable or vi.ocp_versions
    out = [ctx.ocp.get(v) for v in names]
    return [r for r in out if r is not None]


def _suggest(kind: str, known: list) -> Optional[str]:
    low = kind.lower()
    for k in known:
        if k.lower() == low:
            return k
    return None


@RULE.check
def manifest_kinds(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None):
        return  # plain (k8s+v1) bundles may hold any kind
    table = kind_table()
    releases = None
    for m in bundle.manifests:
        kind = m.kind
        if not kind:
            continue  # manifest-invalid says why
        knode = m.root.get("kind")
        if kind in table.always:
            continue
        if releases is None:
            releases = _releases(bundle, ctx)
        if kind in table.refused:
            alt = f" ({table.alternatives[kind]})" if kind in table.alternatives else ""
            yield RULE.at(m.file, knode,
                          f"OLM does not install a {kind} from a bundle", ocp=releases,
                          detail=f"{table.refused[kind]}, so the InstallPlan fails "
                          f"with \"unsupported resource\" and the operator does not install. Remove the {kind} "
                          f"'{m.name or '?'}' from manifests/ and let the operator create it at run time{alt}.")
            continue
        since = table.since.get(kind)
        if since is not None:
            before = [r for r in releases if r.key < since]
            if not before:
                continue
            zs = table.zstreams.get(kind) or {}
            refused = [r for r in before if r.ocp not in zs]
            patched = [r for r in before if r.ocp in zs]
            first = f"{since[0]}.{since[1]}"
            if refused:
                yield RULE.at(m.file, knode,
                              f"OLM installs a {kind} from a bundle only from OpenShift {first}", ocp=refused,
                              detail=(f"Late z-streams of {_ranges(list(zs))} install it too. " if zs else "")
                              + "The InstallPlan fails with \"unsupported resource\" on OpenShift "
                              f"{_ranges([r.ocp for r in refused])}, where this bundle can be installed. Narrow "
                              f"com.redhat.openshift.versions to releases that support {kind}, or remove it from manifests/ "
                              "and let the operator create it.")
            if patched:
                first_z = ", ".join(zs[r.ocp] for r in patched)
                yield RULE.at(m.file, knode,
                              f"OLM installs a {kind} on these releases only from late z-streams", kind="late-zstream", ocp=patched,
                              detail=f"The first z-streams that do: {first_z}. Clusters on an older patch release fail "
                              "the InstallPlan with \"unsupported "
                              f"resource\". Narrow com.redhat.openshift.versions to v{first} and later, or make sure users "
                              "run those patch releases.")
            continue
        known = table.known()
        hint = _suggest(kind, known)
        fix = None
        if hint is not None:
            instead = f"kinds are case-sensitive: write '{hint}'"
            fix = fix_value(m.file, knode, hint, f"the kind OLM knows, {hint}")
        else:
            instead = _INSTEAD.get(kind, "remove it from manifests/ and let the operator create it at run time")
        yield RULE.at(m.file, knode,
                      (f"unknown kind '{kind}': kinds are case-sensitive, write '{hint}'" if hint is not None
                       else f"OLM does not install a {kind} from a registry+v1 bundle"), ocp=releases, fix=fix,
                      detail="The InstallPlan fails with \"unsupported resource\" and the operator does not install. "
                      f"{instead[0].upper() + instead[1:]}.")
