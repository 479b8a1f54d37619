"""Plain Kubernetes bundles (mediatype ``k8s+v1``; ``plain+v0`` in older proposals).

Per the plain-k8s-bundles design: no ClusterServiceVersion; the manifests are plain
Kubernetes objects (at least a Deployment for the operator) and ``metadata/olm.yaml`` carries
what the CSV used to: ``name``, ``version``, ``minKubeVersion`` and ``installModes``. OLM
infers the APIs the bundle provides and requires from its manifests; ``plain-bundle-apis``
shows that inference so authors see it before OLM does.

olm.yaml's ``minKubeVersion`` drives version analysis as the CSV's would
(``checker.publication``: ``bundle.versions.declared_min_kube``), so every version-aware rule
applies to plain bundles.
"""
from __future__ import annotations


from ..model import K8S_V1, PLAIN_V0
from ..publication import is_plain, olm_yaml
from ..nodes import Mapping, Scalar, Sequence
from . import check, define, finding, refusal, said

CATEGORY = "plain"
_DESIGN = "https://github.com/operator-framework/enhancements/blob/master/enhancements/plain-k8s-bundles.md"


def _design(what: str) -> list:
    return [refusal("opm", f"the k8s+v1 validators the plain-bundle design adds to opm refuse {what} (\"New validators will be "
                    "added to opm which ensure all required manifests and metadata are present and valid\")", _DESIGN)]
PLAIN = (K8S_V1, PLAIN_V0)
INSTALL_MODES = ("OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces")
OPTIONAL_ANNOTATION = "operators.operatorframework.io.bundle.dependency"
# Kubernetes' own API groups without the .k8s.io suffix (plus the core group ""): never
# "required" from a catalog, like the *.k8s.io groups the design excludes.
BUILTIN_GROUPS = {"", "apps", "batch", "autoscaling", "policy", "extensions"}


def _doc(sf):
    if sf is None or not sf.documents:
        return None
    d = sf.documents[0]
    return d if isinstance(d, Mapping) else None



# the severity paragraph of the four plain-bundle rules' explanations
_K8S_V1_SEVERITY = """    Severity: an error for a bundle annotated `k8s+v1`. That format exists only in the
    plain-bundle design (seed 002), and the design's own gate for it is the validators it
    adds to opm ("New validators will be added to `opm` which ensure all required manifests
    and metadata are present and valid"): a `k8s+v1` bundle is judged by them. Today's opm
    knows `registry+v1`, `plain` and `helm` only (operator-registry pkg/lib/bundle/generate.go)
    and no released OLM installs `k8s+v1`. A warning for a plain bundle recognised without
    that annotation (`plain+v0`, or olm.yaml and no CSV), which the design's validators do
    not see.
    """

define("plain-bundle-metadata", "error", "metadata/olm.yaml is missing or lacks name, version, minKubeVersion or installModes", category=CATEGORY, mixed=True,
       refused_by=_design("a k8s+v1 bundle without metadata/olm.yaml and its name, version, minKubeVersion and installModes, which the design ALWAYS requires"), explanation="""
    What: a plain bundle (`k8s+v1`) has no ClusterServiceVersion; `metadata/olm.yaml` holds
    the operator's `name`, `version` (semver), `minKubeVersion` and `installModes` (the
    install modes it supports: OwnNamespace, SingleNamespace, MultiNamespace, AllNamespaces).

    Why: OLM reads these instead of a CSV; without them it cannot name, order or place the
    operator, nor tell which clusters it installs on.

    Fix: add metadata/olm.yaml with the four keys.

    Bad:  metadata/ with only annotations.yaml
    Good:
        name: example-operator
        version: 1.0.0
        minKubeVersion: 1.27.0
        installModes: [AllNamespaces]

""" + _K8S_V1_SEVERITY)

define("plain-bundle-deployment", "error", "A plain bundle has no Deployment for the operator", category=CATEGORY, mixed=True,
       refused_by=_design("a k8s+v1 bundle without a Deployment for the operator, which the design ALWAYS requires"), explanation="""
    What: the manifests of a plain bundle hold no `Deployment` (apps/v1).

    Why: the design takes the operator's workload from its Deployment(s): without one there
    is no operator to run, and nothing to bind RBAC to.

    Fix: add the operator's Deployment to manifests/.

""" + _K8S_V1_SEVERITY)

define("plain-bundle-wildcard-rbac", "error", "RBAC with '*' bound to the service account of a plain bundle's Deployment", category=CATEGORY, mixed=True,
       refused_by=_design("wildcard RBAC bound to the service account of the bundle's Deployments (\"disallowed in k8s+v1 bundles\")"), explanation="""
    What: a Role or ClusterRole rule with `*` in apiGroups, resources or verbs, bound (by a
    RoleBinding or ClusterRoleBinding in the bundle) to the service account a Deployment of
    the bundle runs as.

    Why: the plain-bundle design refuses wildcard permissions for the operator: OLM cannot
    tell what the operator needs (it infers required APIs from RBAC), and `*` grants
    everything, including APIs added later.

    Fix: list the groups, resources and verbs the operator uses.

    Bad:
        rules:
          - apiGroups: ["*"]
            resources: ["*"]
            verbs: ["*"]
    Good:
        rules:
          - apiGroups: ["example.com"]
            resources: ["widgets"]
            verbs: ["get", "list", "watch"]

""" + _K8S_V1_SEVERITY)

define("plain-bundle-service", "error", "An APIService or webhook configuration names a Service the plain bundle does not have", category=CATEGORY, mixed=True,
       refused_by=_design("an APIService or webhook configuration without the Service it references, which the design requires"), explanation="""
    What: an `APIService` (`spec.service`) or a `Validating/MutatingWebhookConfiguration`
    (`webhooks[].clientConfig.service`) of a plain bundle names a Service that is not among
    the bundle's manifests.

    Why: OLM installs only what the bundle holds; the API server would send API or webhook
    calls to a Service that does not exist, and every request to that API, or every object
    the webhook matches, fails.

    Fix: add the Service (selecting the operator's Deployment pods) or correct the name.

""" + _K8S_V1_SEVERITY)

define("plain-bundle-apis", "info", "The APIs OLM will infer from a plain bundle", category=CATEGORY, explanation="""
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
    """)


def _has(m, key) -> bool:
    v = m.get(key)
    return v is not None and not (isinstance(v, Scalar) and v.value in (None, ""))


GATED = ("plain-bundle-metadata", "plain-bundle-deployment", "plain-bundle-wildcard-rbac", "plain-bundle-service")


@check("bundle")
def plain_bundle(bundle, ctx):
    if not is_plain(bundle):
        return
    k8s = bundle.mediatype == K8S_V1
    for f in _plain_bundle(bundle, ctx):
        if f.rule in GATED and not k8s:
            f.kind = "not-k8s-v1"  # the design's opm validators judge bundles annotated k8s+v1
        yield f


def _plain_bundle(bundle, ctx):
    yield from _metadata(bundle)
    if not bundle.readable:
        return
    deployments = [m for m in bundle.manifests if m.kind == "Deployment"]
    if not deployments and bundle.manifest_files:
        yield said("plain-bundle-deployment", bundle.sub("manifests"), None,
                      "the plain bundle has no Deployment in manifests/: there is no operator workload for OLM to run. Add the operator's Deployment (apps/v1).")
    sas = {}
    for d in deployments:
        spec = d.spec()
        tpl = spec.get("template") if spec is not None else None
        ps = tpl.get("spec") if isinstance(tpl, Mapping) else None
        sa = None
        if isinstance(ps, Mapping):
            sa = ps.str("serviceAccountName") or ps.str("serviceAccount")
        ns = d.metadata.str("namespace") if d.metadata is not None else None
        sas[(sa or "default", ns)] = d
    yield from _wildcards(bundle, sas)
    yield from _services(bundle)
    yield from _apis(bundle)


def _metadata(bundle):
    sf = olm_yaml(bundle)
    if sf is None:
        where = bundle.sub("metadata") if bundle.has_metadata_dir else bundle.rel
        yield said("plain-bundle-metadata", where, None,
                      "the plain (k8s+v1) bundle has no metadata/olm.yaml; OLM reads the operator's name, version, minKubeVersion and "
                      "installModes from it (there is no CSV). Add metadata/olm.yaml with those four keys.")
        return
    if not sf.readable:
        return
    doc = sf.documents[0] if sf.documents else None
    if not isinstance(doc, Mapping):
        yield said("plain-bundle-metadata", sf, doc,
                      f"metadata/olm.yaml must be a mapping with name, version, minKubeVersion and installModes, not {doc.type_name() if doc is not None else 'empty'}.")
        return
    missing = [k for k in ("name", "version", "minKubeVersion", "installModes") if not _has(doc, k)]
    if missing:
        yield said("plain-bundle-metadata", sf, doc,
                      f"metadata/olm.yaml lacks {', '.join(missing)}; OLM needs name, version, minKubeVersion and installModes to place and "
                      "install a plain bundle. Add " + ("it." if len(missing) == 1 else "them."))
    for key in ("name", "version"):
        v = doc.get(key)
        if v is not None and _has(doc, key) and not (isinstance(v, Scalar) and isinstance(v.value, str)):
            yield said("plain-bundle-metadata", sf, v, f"{key} must be a string (quote it), not {v.type_name()}.")
    v = doc.get("version")
    if isinstance(v, Scalar) and isinstance(v.value, str) and v.value:
        from ..blangsemver import SemverError, parse

        try:
            parse(v.value)
        except SemverError as e:
            yield said("plain-bundle-metadata", sf, v, f"version '{v.value}' is not a semantic version OLM can order ({e}); write major.minor.patch, e.g. 1.2.0.")
    im = doc.get("installModes")
    if im is not None and _has(doc, "installModes"):
        if not isinstance(im, Sequence) or len(im) == 0:
            yield said("plain-bundle-metadata", sf, im, f"installModes must be a non-empty list of install modes ({', '.join(INSTALL_MODES)}).")
        else:
            for item in im:
                t = item.get("type") if isinstance(item, Mapping) else item
                if not (isinstance(t, Scalar) and t.value in INSTALL_MODES):
                    shown = t.raw if isinstance(t, Scalar) else (t.type_name() if t is not None else "nothing")
                    yield said("plain-bundle-metadata", sf, t if t is not None else item,
                                  f"'{shown}' is not an install mode; use {', '.join(INSTALL_MODES)}.")


def _rules(m):
    r = m.root.get("rules") if isinstance(m.root, Mapping) else None
    return [x for x in r if isinstance(x, Mapping)] if isinstance(r, Sequence) else []


def _list(rule, key):
    v = rule.get(key)
    return [x for x in v if isinstance(x, Scalar)] if isinstance(v, Sequence) else []


def _bindings(bundle):
    """(binding manifest, role kind, role name, [(sa name, namespace)])"""
    out = []
    for m in bundle.manifests:
        if m.kind not in ("RoleBinding", "ClusterRoleBinding") or not isinstance(m.root, Mapping):
            continue
        ref = m.root.get("roleRef")
        kind = ref.str("kind") if isinstance(ref, Mapping) else None
        name = ref.str("name") if isinstance(ref, Mapping) else None
        subs = []
        s = m.root.get("subjects")
        if isinstance(s, Sequence):
            for x in s:
                if isinstance(x, Mapping) and x.str("kind") == "ServiceAccount" and x.str("name"):
                    subs.append((x.str("name"), x.str("namespace")))
        out.append((m, kind, name, subs))
    return out


def _wildcards(bundle, sas):
    roles = {(m.kind, m.name): m for m in bundle.manifests if m.kind in ("Role", "ClusterRole") and m.name}
    sa_names = {sa for sa, _ns in sas}
    reported = set()
    for b, kind, name, subs in _bindings(bundle):
        bound = [sa for sa, _ns in subs if sa in sa_names]
        if not bound:
            continue
        role = roles.get((kind, name))
        if role is None:
            continue
        for rule in _rules(role):
            for key in ("apiGroups", "resources", "verbs"):
                for x in _list(rule, key):
                    if x.value == "*" and (role.file.rel, x.line, x.col) not in reported:
                        reported.add((role.file.rel, x.line, x.col))
                        yield said("plain-bundle-wildcard-rbac", role.file, x,
                                      f"{role.kind} '{role.name}' grants '*' in {key} to the operator's service account "
                                      f"'{bound[0]}'; plain bundles may not give the operator wildcard permissions (OLM "
                                      f"infers the APIs it requires from its RBAC; {b.kind} '{b.name}' binds the role). "
                                      f"List the {key} it uses instead.")


def _services(bundle):
    services = {m.name for m in bundle.manifests if m.kind == "Service" and m.name}
    for m in bundle.manifests:
        if not isinstance(m.root, Mapping):
            continue
        if m.kind == "APIService":
            spec = m.spec()
            svc = spec.get("service") if spec is not None else None
            n = svc.get("name") if isinstance(svc, Mapping) else None
            if isinstance(n, Scalar) and isinstance(n.value, str) and n.value not in services:
                yield said("plain-bundle-service", m.file, n,
                              f"APIService '{m.name}' sends its API to Service '{n.value}', which is not in the bundle; OLM installs only what the "
                              f"bundle holds, so every request to {spec.str('group') or 'the API'} would fail. Add the Service to manifests/ or correct the name.")
        elif m.kind in ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"):
            hooks = m.root.get("webhooks")
            for h in hooks if isinstance(hooks, Sequence) else []:
                cc = h.get("clientConfig") if isinstance(h, Mapping) else None
                svc = cc.get("service") if isinstance(cc, Mapping) else None
                n = svc.get("name") if isinstance(svc, Mapping) else None
                if isinstance(n, Scalar) and isinstance(n.value, str) and n.value not in services:
                    yield said("plain-bundle-service", m.file, n,
                                  f"webhook '{h.str('name') or '?'}' calls Service '{n.value}', which is not in the bundle; "
                                  f"it is a webhook of {m.kind} '{m.name}', and "
                                  "the API server would fail every request the webhook matches. Add the Service to manifests/ or correct the name.")


def _apis(bundle):
    provided, own_groups = [], set()
    for m in bundle.crds:
        spec = m.spec()
        if spec is None:
            continue
        g = spec.str("group") or ""
        names = spec.get("names")
        kind = names.str("kind") if isinstance(names, Mapping) else None
        vers = spec.get("versions")
        vs = [v.str("name") for v in vers if isinstance(v, Mapping) and v.str("name")] if isinstance(vers, Sequence) else []
        if not vs and spec.str("version"):
            vs = [spec.str("version")]
        own_groups.add(g)
        provided.append(f"{g}/{'|'.join(vs) or '?'}/{kind or '?'}")
    for m in bundle.manifests:
        if m.kind == "APIService":
            spec = m.spec()
            if spec is not None and spec.str("group"):
                own_groups.add(spec.str("group"))
                provided.append(f"{spec.str('group')}/{spec.str('version') or '?'} (aggregated API)")
    required, optional, native = set(), set(), set()
    roles = {(m.kind, m.name): m for m in bundle.manifests if m.kind in ("Role", "ClusterRole") and m.name}
    role_optional = {}
    for b, kind, name, _subs in _bindings(bundle):
        ann = b.annotation(OPTIONAL_ANNOTATION)
        opt = ann is not None and ann.value == "optional"
        role_optional[(kind, name)] = role_optional.get((kind, name), True) and opt
    for key, role in roles.items():
        opt = role_optional.get(key, False)
        for rule in _rules(role):
            for u in _list(rule, "nonResourceURLs"):
                if isinstance(u.value, str):
                    native.add(u.value)
            groups = [g.value for g in _list(rule, "apiGroups") if isinstance(g.value, str)]
            resources = [r.value for r in _list(rule, "resources") if isinstance(r.value, str)]
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
    yield finding("plain-bundle-apis", where, None, "OLM will infer these APIs from this plain bundle: " + ", ".join(counts),
                  detail="All of them: " + "; ".join(parts) + ". A required API must be provided by another operator "
                  "in the catalog, or the install waits for it.")
