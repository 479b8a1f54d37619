"""Bundle format (registry+v1): files that cannot be read, layout, annotations, manifests."""
from __future__ import annotations

import re
from typing import Optional

from ..model import K8S_V1, PLAIN_V0, REGISTRY_V1, Bundle
from ..nodes import Mapping, Scalar
from . import check, define, finding, refusal, rule

# Where what these rules report is refused (sources of the refused_by entries)
OPM_VALIDATE = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
OPM_PARSE = "https://github.com/operator-framework/operator-registry/blob/master/pkg/registry/parse.go"
API_LOADER = "https://github.com/operator-framework/api/blob/master/pkg/manifests/bundleloader.go"
GO_YAML = "https://github.com/yaml/go-yaml/blob/v2/decode.go"
SIGS_YAML = "https://github.com/kubernetes-sigs/yaml/blob/master/yaml.go"
HOSTED_PIPELINE = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/ansible/roles/"
                   "operator-pipeline/templates/openshift/pipelines/operator-hosted-pipeline.yml")
OLM_CATALOG = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/catalog/operator.go"
OLM_STEPS = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/registry/resolver/steps.go"
API_BUNDLE = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/bundle.go"
BUILDKIT_LINKS = "https://github.com/moby/buildkit/discussions/6840"

define("yaml-syntax", "error", "A file is not valid YAML, or is YAML Kubernetes' decoder refuses", refused_by=[
    refusal("opm", "`opm alpha bundle validate` decodes every manifest and fails on one that does not decode; "
            "opm's bundle parser drops it (and without its CSV the bundle has none)", OPM_VALIDATE),
    refusal("catalog-ci", "the hosted pipeline's yaml-lint task (yamllint) and operator-sdk's bundle loader "
            "(\"unable to decode object\") fail the pull request", HOSTED_PIPELINE),
    refusal("api-server", "sigs.k8s.io/yaml (go-yaml v2) refuses a merge key without a mapping, a list or mapping "
            "as a key and a null key", SIGS_YAML),
], explanation="""
    What: the file does not parse as YAML, or parses only as YAML that Kubernetes' decoder
    (sigs.k8s.io/yaml on go-yaml v2, used by opm, operator-sdk, OLM and kubectl) refuses: a
    merge key `<<` given a single value, a list of non-mappings or an alias to one ("map
    merge requires map or sequence of maps as the value"), a mapping key that is a list or a
    mapping (a complex `? ` key: "invalid map key"), or a null key (`~:`, `null:`; JSON keys
    are strings). The finding points at the line and column where the parser stopped, or at
    the offending key; in the second case the rest of the file is still checked.

    Why: opm, OLM and the API server cannot read the file, so the bundle cannot be built or
    installed: opm's bundle validation fails, and its bundle parser drops the object. Nothing
    else in the file is checked until it parses.

    Fix: correct the syntax at the position shown (often an indentation slip, a tab, a missing
    `:` or an unclosed quote or bracket).

    Bad:
        spec:
          displayName: "My operator
        metadata:
          <<: 5
    Good:
        spec:
          displayName: "My operator"
        metadata:
          <<: *defaults
    """)

define("yaml-duplicate-key", "error", "A YAML mapping repeats a key", mixed=True,
       supersedes=("yaml-lint",),  # yamllint's key-duplicates at the same key: one finding, ours names the first
       refused_by=[
    refusal("catalog-ci", "the hosted pipeline's yaml-lint task runs yamllint with its default rules, whose "
            "key-duplicates rule fails on any repeated key", HOSTED_PIPELINE),
], explanation="""
    What: the same key appears twice in one mapping (merge keys `<<` may repeat). An error
    when the two values differ; a warning when they are the same (nothing is lost yet, but an
    edit to one copy will be).

    Why: YAML loaders keep only the last value without a word, so what you see in the first
    place is not what OLM gets (a duplicated `spec:` loses half of the spec). Kubernetes'
    decoder itself accepts repeated keys (sigs.k8s.io/yaml is not strict), but the community
    and certified catalogs' pipeline runs yamllint on every bundle, and its `key-duplicates`
    rule fails the pull request on any repeated key (with equal values too: olm-check keeps
    those a warning, since nothing is lost).

    Fix: remove one of them, or merge their contents.

    Bad:
        metadata:
          name: a
          name: b
    Good:
        metadata:
          name: b
    """)

define("yaml-limits", "error", "A file is refused: too large, too deep, an alias bomb, binary, not UTF-8, or a symlink out of the tree", mixed=True, refused_by=[
    refusal("opm", "go-yaml, under sigs.k8s.io/yaml, refuses bytes that are not UTF-8 or are control characters and "
            "\"excessive aliasing\"; opm cannot decode such a manifest, nor read a broken link", GO_YAML),
    refusal("catalog-ci", "the bundle image is built from the bundle directory; the image builder does not follow a "
            "symbolic link out of its build context, so the image lacks what the link points to", BUILDKIT_LINKS),
    refusal("olm-install", "OLM unpacks a bundle into a ConfigMap; a file over the 1 MiB a bundle may take never "
            "installs", API_BUNDLE),
], explanation="""
    What: olm-check refuses to read a file that is larger than its size limit (16 MiB by
    default), nests deeper than its depth limit (128), expands aliases past its limit (an
    "alias bomb"), is binary or not UTF-8, or is a symbolic link pointing outside the checked
    tree.

    Why: such files are either mistakes (a binary in manifests/, a link to a developer's
    machine) or attacks on the checker; catalog tooling and the API server refuse them too:
    Kubernetes' YAML decoder refuses bytes that are not UTF-8, control characters and
    excessive aliasing, the bundle image is built without what a link out of the bundle
    directory points to, and a bundle over 1 MiB never installs. These are errors. Where only
    olm-check stops (nesting deeper than its own limit, a UTF-16 file, a pipe or device, a
    file it may not read) the finding is a warning: nothing else is known to refuse it, but
    the file was not checked.

    Fix: replace the file with the plain UTF-8 YAML it should be. Limits can be raised in
    `.olm-check.yaml` (`limits: {max_file_mib, max_depth, max_alias_nodes}`) when a file is
    genuinely that large.
    """)


def file_problems(files, bundle_rel=None):
    for sf in files:
        for p in sf.problems:
            if p.rule in ("yaml-syntax", "yaml-duplicate-key", "yaml-limits", "bundle-layout"):
                yield finding(p.rule, sf, None, p.message, line=p.line, column=p.column, severity=p.severity,
                              detail=p.detail)


@check("bundle")
def yaml_problems(bundle: Bundle, ctx):
    yield from file_problems(bundle.files)
    if bundle.dockerfile is not None:
        for p in bundle.dockerfile.problems:
            yield finding(p.rule, bundle.dockerfile.file, None, p.message, line=p.line, column=p.column, detail=p.detail)


@check("repo")
def yaml_problems_outside_bundles(repo, ctx):
    yield from file_problems(repo.loose_files)
    for op in repo.operators.values():
        if op.ci_file is not None:
            yield from file_problems([op.ci_file])


MEDIATYPE_KEY = "operators.operatorframework.io.bundle.mediatype.v1"
MANIFESTS_KEY = "operators.operatorframework.io.bundle.manifests.v1"
METADATA_KEY = "operators.operatorframework.io.bundle.metadata.v1"
PACKAGE_KEY = "operators.operatorframework.io.bundle.package.v1"
CHANNELS_KEY = "operators.operatorframework.io.bundle.channels.v1"
DEFAULT_KEY = "operators.operatorframework.io.bundle.channel.default.v1"
# opm's own (operator-registry pkg/lib/bundle/generate.go: RegistryV1Type, PlainType, HelmType),
# then the plain-bundle design's k8s+v1 (seed 002) and the file-based catalogs' plain+v0
OPM_MEDIATYPES = (REGISTRY_V1, "plain", "helm")
KNOWN_MEDIATYPES = OPM_MEDIATYPES + (K8S_V1, PLAIN_V0)


@rule("bundle-layout", "error", "The bundle directory is not laid out as a bundle", refused_by=[
    refusal("opm", "`opm alpha bundle validate` fails without manifests/ or metadata/ (\"Unable to locate manifests "
            "directory\"), without an annotations file or with another mediatype; opm's bundle parser refuses a bundle "
            "with no objects or no annotations file (\"Could not find annotations file\")", OPM_VALIDATE),
    refusal("catalog-ci", "operator-sdk's bundle loader fails on a directory inside manifests/ (\"bundle manifests "
            "dir contains directory\")", API_LOADER),
])
def bundle_layout(bundle: Bundle, ctx):
    """
    What: a bundle directory needs `manifests/` (the Kubernetes objects), `metadata/` and
    `metadata/annotations.yaml` with a known mediatype (`registry+v1` for the classic format;
    opm's `plain` and `helm`; `k8s+v1`/`plain+v0` for plain Kubernetes bundles). olm-check
    reports half-formed bundle directories instead of skipping them. (Today's `opm alpha bundle
    validate` infers the mediatype from the manifests, `registry+v1` with a CSV and `plain`
    without, and would refuse a `k8s+v1` annotation; olm-check judges `k8s+v1` bundles by the
    validators the plain-bundle design adds to opm instead, the `plain-bundle-*` rules.)

    Why: opm cannot build a bundle image, and catalog CI rejects the pull request, when one of
    them is missing: `opm alpha bundle validate` stops at "Unable to locate manifests
    directory" or "Could not find annotations file" (also when metadata/annotations.yaml is a
    directory), and operator-sdk's bundle loader fails on a directory inside manifests/.

    Fix: create the missing directory or file (`operator-sdk generate bundle` writes all of
    them), or remove the stray directory.

    Bad:  operators/foo/1.0.0/manifests/... with no metadata/annotations.yaml
    Good: operators/foo/1.0.0/{manifests/,metadata/annotations.yaml}
    """
    d = bundle.rel
    refused = bundle.refused_dirs  # a link out of the tree: yaml-limits says so
    has_manifests, has_metadata = bundle.has_manifests_dir, bundle.has_metadata_dir
    if not has_manifests:
        yield finding("bundle-layout", d, None, "the bundle directory has no manifests/ directory",
                      detail="There is nothing for OLM to install, and `opm alpha bundle validate` stops at \"Unable to "
                      "locate manifests directory\". Add manifests/ with the ClusterServiceVersion and the CRDs, or remove "
                      "this directory.")
    elif not bundle.manifest_files and "manifests" not in refused:
        yield finding("bundle-layout", bundle.sub("manifests"), None, "manifests/ is empty",
                      detail="There is nothing for OLM to install, and opm refuses a bundle without objects. Add the "
                      "ClusterServiceVersion and the CRDs.")
    if not has_metadata:
        yield finding("bundle-layout", d, None, "the bundle directory has no metadata/ directory",
                      detail="opm needs metadata/annotations.yaml to know the package, channels and format (\"Could not "
                      "find annotations file\"). Add it (`operator-sdk generate bundle` writes it).")
    elif bundle.annotations_file is None and "metadata" not in refused and not bundle.annotations_dir:
        yield finding("bundle-layout", bundle.sub("metadata"), None, "metadata/ has no annotations.yaml",
                      detail="opm needs it to know the package, channels and format (\"Could not find annotations "
                      "file\"). Add metadata/annotations.yaml with the operators.operatorframework.io.bundle.* annotations.")
    for where, msg, why in bundle.layout_problems:
        yield finding("bundle-layout", where, None, msg, detail=why)
    af = bundle.annotations_file
    if af is not None and af.readable:
        doc = af.documents[0] if af.documents else None
        if not isinstance(doc, Mapping) or not isinstance(doc.get("annotations"), Mapping):
            node = doc if doc is not None else None
            yield finding("bundle-layout", af, node, "annotations.yaml has no mapping under the top-level key 'annotations:'",
                          detail="opm finds no bundle annotations here. Put every operators.operatorframework.io.bundle.* "
                          "key under 'annotations:'.")
            return
        ann = bundle.annotations
        mt = ann.get(MEDIATYPE_KEY)
        if mt is None:
            yield finding("bundle-layout", af, ann, f"the mediatype annotation {MEDIATYPE_KEY} is missing",
                          detail=f"opm does not know the bundle format without it. Add '{MEDIATYPE_KEY}: registry+v1'.")
        elif not isinstance(mt, Scalar) or mt.value not in KNOWN_MEDIATYPES:
            shown = mt.raw if isinstance(mt, Scalar) else mt.type_name()
            yield finding("bundle-layout", af, mt, f"the mediatype '{shown}' is not one opm knows ({', '.join(OPM_MEDIATYPES)})",
                          detail="opm refuses a bundle of another format. Write 'registry+v1' for a bundle with a "
                          "ClusterServiceVersion.")

_OPM_ANNOTATIONS = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
_OPM_DEFAULT = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/registry/populator.go"
_CI_DOCKERFILE = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/entrypoints/bundle_dockerfile.py"


@rule("bundle-annotations", "error", "Required bundle annotations are missing or inconsistent", mixed=True, refused_by=[
    refusal("opm", "`opm alpha bundle validate` (and the index build) refuses a bundle whose annotations.yaml lacks the "
             "mediatype, manifests, metadata, package or channels key, or sets an empty default channel", _OPM_ANNOTATIONS),
    refusal("opm", "`opm index add` refuses a package whose default channel, taken from its highest-version bundle, is not "
             "one of the package's channels (\"unable to determine default channel\")", _OPM_DEFAULT),
    refusal("catalog-ci", "the catalog pipeline builds the bundle image from a Dockerfile it generates from annotations.yaml, "
             "copying the directories the manifests/metadata annotations name: another directory fails or skews the build",
             _CI_DOCKERFILE),
])
def bundle_annotations(bundle: Bundle, ctx):
    """
    What: metadata/annotations.yaml must name the package
    (`operators.operatorframework.io.bundle.package.v1`), the channels (`...channels.v1`,
    comma-separated), the manifests and metadata directories (`...manifests.v1: manifests/`,
    `...metadata.v1: metadata/`) and, when set, a non-empty default channel.

    The default channel is a fact of the package, not of each bundle: opm takes the package's
    default channel from its highest-version bundle, and that channel must exist in the
    package (some bundle lists it). In a catalog repository (`operators/<name>/<version>/`)
    olm-check therefore checks it across the operator's bundles: only the head bundle's
    default decides (an error when no bundle of the operator is in that channel); an older
    bundle may name any channel the package has, and one the package does not have is a
    warning (it no longer decides anything). Operators whose catalogs are file-based
    (`fbc: {enabled: true}` in ci.yaml) are skipped: their catalogs set the default channel
    (`fbc-schema` checks it). A bundle checked on its own, without its operator around it,
    gets a warning when its default is not among its own channels (the package may already
    have that channel; olm-check cannot see it).

    A bundle.Dockerfile's LABELs should match these annotations: a warning for a bundle
    checked on its own (opm reads annotations.yaml, not the labels); not reported in a catalog
    repository, whose pipeline generates the Dockerfile from annotations.yaml.

    Why: opm reads these to place the bundle in its package and channels; it refuses missing
    keys and an empty default, and a package whose default channel does not exist. Errors
    are what `opm` or the catalog pipeline refuses; the rest are warnings.

    Fix: add the missing keys; set the head bundle's default channel to one of the package's
    channels.

    Bad:
        annotations:
          operators.operatorframework.io.bundle.channels.v1: alpha
          operators.operatorframework.io.bundle.channel.default.v1: stable   # no bundle is in stable
    Good:
        annotations:
          operators.operatorframework.io.bundle.channels.v1: stable,alpha
          operators.operatorframework.io.bundle.channel.default.v1: stable
    """
    ann = bundle.annotations
    af = bundle.annotations_file
    if ann is None or af is None:
        return
    if bundle.mediatype in (K8S_V1, PLAIN_V0):
        # plain bundles: no CSV, but opm's annotation validation still needs where the
        # manifests are and the channels the bundle is in (validateAnnotations)
        for key, what in ((MANIFESTS_KEY, "the manifests directory, 'manifests/'"), (CHANNELS_KEY, "the channels the bundle is in")):
            v = ann.get(key)
            if v is None:
                yield finding("bundle-annotations", af, ann, f"the required annotation {key} is missing",
                              detail=f"It names {what}; opm's bundle validation fails a bundle without it (\"Missing "
                              "annotation\"), whatever its mediatype. Add it.")
            elif not isinstance(v, Scalar) or not isinstance(v.value, str) or not v.value.strip():
                yield finding("bundle-annotations", af, v, f"{key} is not a non-empty string",
                              detail=f"It names {what}; opm's bundle validation refuses anything else. Write it as a string.")
        return
    if bundle.mediatype not in (REGISTRY_V1, None):
        return  # an unknown mediatype: bundle-layout says so
    in_catalog = bundle.operator is not None  # operators/<name>/<version>/ of a catalog repository
    required = [
        (PACKAGE_KEY, "the package name"),
        (CHANNELS_KEY, "the channels the bundle is in"),
        (MANIFESTS_KEY, "the manifests directory, 'manifests/'"),
        (METADATA_KEY, "the metadata directory, 'metadata/'"),
    ]
    for key, what in required:
        v = ann.get(key)
        if v is None:
            yield finding("bundle-annotations", af, ann, f"the required annotation {key} is missing",
                          detail=f"It names {what}; opm cannot place the bundle without it (\"Missing annotation\"). Add it.")
        elif not isinstance(v, Scalar) or not isinstance(v.value, str) or not v.value.strip():
            yield finding("bundle-annotations", af, v, f"{key} is not a non-empty string",
                          detail=f"It names {what}; opm's bundle validation refuses anything else. Write it as a string.")
    channels = []
    ch = ann.get(CHANNELS_KEY)
    if isinstance(ch, Scalar) and isinstance(ch.value, str):
        channels = [c.strip() for c in ch.value.split(",")]
        if any(c == "" for c in channels):
            yield finding("bundle-annotations", af, ch, f"the channel list '{ch.value}' has an empty entry",
                          detail="opm refuses an empty channel name. Write the channel names separated by commas without gaps.")
        channels = [c for c in channels if c]
    dflt = ann.get(DEFAULT_KEY)
    if isinstance(dflt, Scalar):
        value = dflt.value.strip() if isinstance(dflt.value, str) else None
        if not value:
            # opm's annotation validation: the key may be left out, but not left empty
            yield finding("bundle-annotations", af, dflt, "the default channel annotation is empty",
                          detail=f"opm refuses an empty default channel ({DEFAULT_KEY}). Set it to one of the package's "
                          f"channels{' (' + ', '.join(channels) + ')' if channels else ''}, or remove the key.")
        elif channels and value not in channels and not in_catalog:
            # a bundle on its own: the package may have this channel from earlier bundles
            yield finding("bundle-annotations", af, dflt,
                          f"the default channel '{value}' is not one of this bundle's channels ({', '.join(channels)})",
                          severity="warning",
                          detail="The package's default channel comes from its highest-version bundle and must be a "
                          f"channel some bundle of the package is in: unless earlier bundles of the package are in "
                          f"'{value}', opm refuses the package. Set it to one of {', '.join(channels)}, or add '{value}' "
                          "to the channels annotation.")
    for key, value in ((MANIFESTS_KEY, "manifests/"), (METADATA_KEY, "metadata/")):
        v = ann.get(key)
        if isinstance(v, Scalar) and isinstance(v.value, str) and v.value.strip() and v.value.strip().rstrip("/") != value.rstrip("/"):
            why = ("the catalog pipeline builds the bundle image with COPY from the directory this annotation names, so the image "
                   "would miss its content" if in_catalog else "opm reads the bundle from this directory whatever the annotation says, "
                   "so the annotation misleads")
            yield finding("bundle-annotations", af, v, f"{key} is '{v.value}', not '{value}'",
                          severity=None if in_catalog else "warning", kind="build-dir" if in_catalog else "",
                          detail=f"Bundles keep this content in '{value}'; {why}. Write '{value}'.")
    df = bundle.dockerfile
    if df is not None and not in_catalog:
        for key, _w in required + [(DEFAULT_KEY, ""), (MEDIATYPE_KEY, "")]:
            a = ann.get(key)
            lab = df.labels.get(key)
            colon = df.labels.get(key + ":")
            if lab is None and colon is not None:
                # 'LABEL key: value' is Docker's legacy 'LABEL key value' form: the label is named 'key:'
                yield finding("bundle-annotations", df.file, None,
                              f"the LABEL {key} is written 'key: value': the image has no such label",
                              severity="warning", line=colon.line, column=colon.column,
                              detail="Docker reads 'LABEL key value' (no '=') as the legacy form and keeps the colon in the key, so "
                              f"the bundle image lacks {key}. Write LABEL {key}={colon.value}.")
            if isinstance(a, Scalar) and lab is not None and str(a.value) != lab.value:
                yield finding("bundle-annotations", df.file, None,
                              f"the LABEL {key.rsplit('.', 2)[-2]}={lab.value} differs from annotations.yaml ('{a.value}')",
                              severity="warning", line=lab.line, column=lab.column,
                              detail=f"opm reads annotations.yaml ({key}), so the image's labels mislead whoever inspects "
                              "them. Make them the same.")


# Kinds OLM's InstallPlan decodes by kind alone into their typed objects (Secret, ConfigMap,
# Service, ServiceAccount and the RBAC kinds): their apiVersion is never read.
BY_KIND = frozenset(("Secret", "ConfigMap", "Service", "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"))
_GV_PART = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")


def _bad_api_version(v: str) -> Optional[str]:
    """Why ``v`` cannot be an apiVersion (``group/version`` or ``version``), or None."""
    if not v.isprintable() or not v.isascii():
        return "holds bytes that are not printable ASCII"
    parts = v.split("/")
    if len(parts) > 2:
        return "has more than one '/'"
    if any(not p for p in parts):
        return "has an empty group or version"
    if any(_GV_PART.fullmatch(p) is None for p in parts):
        return "is not a lowercase group/version name"
    return None


@rule("manifest-invalid", "error", "A manifest lacks apiVersion, kind or metadata.name, or has the wrong shape", mixed=True, refused_by=[
    refusal("olm-install", "OLM cannot decode an object without kind, refuses a CSV without apiVersion, and finds no "
            "API for the group/version of any kind it does not decode by kind", OLM_CATALOG),
    refusal("opm", "`opm alpha bundle validate` decodes each manifest (kind required) and validates the metadata "
            "(name required) of every object but CSVs and CRDs", OPM_VALIDATE),
    refusal("api-server", "metadata labels and annotations must be strings, metadata and spec mappings",
            "https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go"),
])
def manifest_invalid(bundle: Bundle, ctx):
    """
    What: every document in manifests/ must be a Kubernetes object: a mapping with
    `apiVersion` (a group/version such as `apps/v1`), `kind` and `metadata.name` as strings,
    and `metadata`/`spec` as mappings.

    Why: opm and the API server reject objects without them; a `spec: "text"` or a list where
    a mapping belongs fails the install. OLM decodes Secrets, ConfigMaps, Services,
    ServiceAccounts and the RBAC kinds (Role, RoleBinding, ClusterRole, ClusterRoleBinding)
    by their kind alone and never reads their apiVersion, so a missing or malformed apiVersion
    on those is a warning (nothing refuses it; write it anyway); on any other kind OLM looks
    the group/version up in the cluster's API discovery and the InstallPlan fails.

    Key spelling: opm's bundle parser (operator-registry pkg/registry/parse.go addManifests)
    decodes each file into an unstructured object, which needs the exact key `kind`; a file
    with `Kind:` fails to decode and is left out of the bundle (an error). A CSV whose
    `apiVersion` is spelled otherwise (`ApiVersion`) is read: opm tells the CSV by its kind,
    and OLM decodes it with encoding/json, which matches field names case-insensitively
    (operator-lifecycle-manager pkg/controller/operators/catalog/operator.go, ExecutePlan):
    a warning (kind `key-case-csv`), and its value is still checked. On any other kind the
    misspelt apiVersion is not read (the unstructured object has none).

    Fix: add the missing field, or give the field the shape Kubernetes expects.

    A `features.operators.openshift.io/*` annotation that is not a string (an unquoted
    `true`) is reported once, by feature-annotations, with its fix, when that rule is on.

    Bad:
        apiVersion: v1
        kind: ConfigMap
        metadata: my-config
    Good:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: my-config
    """
    for m in bundle.manifests:
        root = m.root
        sf = m.file
        if not isinstance(root, Mapping):
            yield finding("manifest-invalid", sf, root, f"this document is {root.type_name()}, not a Kubernetes object",
                          detail="opm and OLM expect a mapping with apiVersion, kind and metadata. Remove it or write the object.")
            continue
        kind = root.get("kind")
        by_kind = isinstance(kind, Scalar) and kind.value in BY_KIND
        for key in ("apiVersion", "kind"):
            v = root.get(key)
            sev = "warning" if key == "apiVersion" and by_kind else None
            why = (f"OLM installs a {kind.value} by its kind and ignores apiVersion, but kubectl and other tools need it"
                   if sev else "opm and the API server cannot tell what it is")
            if v is None:
                slip = next((k for k, _ in root.items() if isinstance(k, Scalar) and isinstance(k.value, str)
                             and k.value != key and k.value.lower() == key.lower()), None)
                if slip is not None and key == "apiVersion" and isinstance(kind, Scalar) and kind.value == "ClusterServiceVersion":
                    # OLM decodes the CSV with encoding/json (case-insensitive field names) and opm tells
                    # the CSV by its kind alone: the misspelt key is read; its value is still checked
                    sv = root.get(slip.value)
                    yield finding("manifest-invalid", sf, slip, f"the CSV's apiVersion is spelled '{slip.value}'",
                                  severity="warning", kind="key-case-csv",
                                  detail="OLM decodes the CSV into its Go type with encoding/json, which matches field names "
                                  "case-insensitively (operator-lifecycle-manager catalog/operator.go ExecutePlan), and opm "
                                  "tells the CSV by its kind alone, so it is read; tools that read manifests as unstructured objects "
                                  "(kubectl, and opm and OLM for every other kind) see no apiVersion. Write 'apiVersion'.")
                    if isinstance(sv, Scalar) and isinstance(sv.value, str) and sv.value:
                        bad = _bad_api_version(sv.value)
                        if bad is not None:
                            shown = sv.value.encode("unicode_escape").decode("ascii")[:60]
                            yield finding("manifest-invalid", sf, sv, f"apiVersion '{shown}' {bad}",
                                          detail="It is not a group/version such as 'v1' or 'apps/v1'; OLM finds no such API in "
                                          "the cluster, so the InstallPlan fails. Write 'operators.coreos.com/v1alpha1'.")
                    continue
                if slip is not None:
                    yield finding("manifest-invalid", sf, slip, f"the object has no {key}: it is spelled '{slip.value}'",
                                  severity=sev, detail=f"Kubernetes' keys are case-sensitive: opm and OLM read manifests as "
                                  f"unstructured objects, whose '{key}' is an exact key (a '{slip.value}' is not read); {why}. "
                                  + ("opm's bundle parser cannot decode an object without 'kind' and leaves the file out of "
                                     "the bundle (operator-registry pkg/registry/parse.go addManifests). " if key == "kind" else "")
                                  + f"Write '{key}'.")
                    continue
                yield finding("manifest-invalid", sf, root, f"the object has no {key}", severity=sev,
                              detail=f"Without {key}, {why}. Add {key}.")
            elif not (isinstance(v, Scalar) and isinstance(v.value, str) and v.value):
                yield finding("manifest-invalid", sf, v, f"{key} is {v.type_name()}, not a non-empty string", severity=sev,
                              detail=f"Without a string {key}, {why}. Write it as a string.")
            elif key == "apiVersion":
                bad = _bad_api_version(v.value)
                if bad is not None:
                    shown = v.value.encode("unicode_escape").decode("ascii")[:60]
                    consequence = (f"OLM installs a {kind.value} by its kind and ignores it, but no other tool accepts it" if sev else
                                   "OLM finds no such API in the cluster, so the InstallPlan fails, and the API server refuses it")
                    yield finding("manifest-invalid", sf, v, f"apiVersion '{shown}' {bad}", severity=sev,
                                  detail=f"It is not a group/version such as 'v1' or 'apps/v1'; {consequence}. Write the "
                                  "object's real apiVersion.")
        md = root.get("metadata")
        if md is None:
            yield finding("manifest-invalid", sf, root, "the object has no metadata",
                          detail="opm validates every object's metadata, and OLM cannot create an object without a name. "
                          "Add metadata with a name.")
        elif not isinstance(md, Mapping):
            yield finding("manifest-invalid", sf, md, f"metadata is {md.type_name()}, not a mapping",
                          detail="The API server refuses the object. Write metadata as a mapping with name, labels and annotations.")
        else:
            n = md.get("name")
            if n is None:
                if md.get("generateName") is None:
                    yield finding("manifest-invalid", sf, md, "metadata has no name",
                                  detail="OLM cannot create an object without one. Add metadata.name.")
            elif not (isinstance(n, Scalar) and isinstance(n.value, str) and n.value):
                yield finding("manifest-invalid", sf, n, f"metadata.name is {n.type_name()}, not a non-empty string",
                              detail="The API server refuses the object. Write the name as a string.")
            for key in ("labels", "annotations"):
                v = md.get(key)
                if v is not None and not isinstance(v, Mapping) and not (isinstance(v, Scalar) and v.value is None):
                    yield finding("manifest-invalid", sf, v, f"metadata.{key} is {v.type_name()}, not a mapping of strings",
                                  detail="The API server refuses the object. Write a mapping of string keys to string values.")
                elif isinstance(v, Mapping):
                    for k, val in v.items():
                        if not isinstance(val, Scalar):
                            yield finding("manifest-invalid", sf, val,
                                          f"{key[:-1]} '{k.value if isinstance(k, Scalar) else '?'}' is {val.type_name()}, not a string",
                                          detail="Kubernetes requires a string here and rejects the object. Write it as a "
                                          "quoted string (JSON text for structured values).")
                        elif val.value is not None and not isinstance(val.value, str):
                            yield finding("manifest-invalid", sf, val,
                                          f"{key[:-1]} '{k.value}' is {val.type_name()} ({val.raw}), not a string",
                                          detail=f"Kubernetes requires strings here and rejects the object. Quote it: \"{val.raw}\".")
        spec = root.get("spec")
        if spec is not None and not isinstance(spec, Mapping) and not (isinstance(spec, Scalar) and spec.value is None):
            yield finding("manifest-invalid", sf, spec, f"spec is {spec.type_name()}, not a mapping",
                          detail="The API server rejects the object. Write spec as a mapping.")


@rule("csv-missing", "error", "The bundle has no ClusterServiceVersion, or more than one", refused_by=[
    refusal("opm", "opm's bundle parser refuses a bundle without a CSV (\"no csv in bundle\") and keeps only the "
            "first of several", OPM_PARSE),
    refusal("catalog-ci", "operator-sdk's bundle loader fails without a CSV (\"unable to find a csv\") or with "
            "several (\"contains multiple CSVs\")", API_LOADER),
])
def csv_missing(bundle: Bundle, ctx):
    """
    What: a registry+v1 bundle holds exactly one ClusterServiceVersion in manifests/.

    Why: the CSV is what OLM installs; without it the bundle is not an operator (opm: "no csv
    in bundle"), and with two opm keeps only the first while operator-sdk's bundle validation,
    run by catalog CI, fails ("invalid bundle: contains multiple CSVs").

    Fix: add the CSV (`operator-sdk generate bundle`), or remove the extra one (old CSVs belong
    in their own version directory).
    """
    if bundle.mediatype not in (REGISTRY_V1, None) or not bundle.manifest_files:
        return
    csvs = bundle.csvs
    if not csvs:
        if not bundle.readable:
            return  # a file failed to parse: yaml-syntax/yaml-limits already says why
        yield finding("csv-missing", bundle.sub("manifests"), None, "manifests/ has no ClusterServiceVersion",
                      detail="OLM has nothing to install, and opm refuses the bundle (\"no csv in bundle\"). Add the CSV "
                      "(kind: ClusterServiceVersion) for this version.")
    elif len(csvs) > 1:
        names = ", ".join(f"{c.name} ({c.file.rel})" for c in csvs)
        for c in csvs[1:]:
            yield finding("csv-missing", c.file, c.root, f"the bundle holds {len(csvs)} ClusterServiceVersions; this one, {c.name}, is extra",
                          detail=f"A bundle is one version of one operator: opm keeps only the first, and operator-sdk's "
                          f"validation fails (\"contains multiple CSVs\"). The CSVs: {names}. Move each other CSV to its "
                          "own version directory.")
