"""Bundle format (registry+v1): files that cannot be read, layout, annotations, manifests."""
from __future__ import annotations

import os

from ..model import K8S_V1, PLAIN_V0, REGISTRY_V1, Bundle
from ..nodes import Mapping, Scalar
from . import check, define, finding, rule

define("yaml-syntax", "error", "A file is not valid YAML", """
    What: the file does not parse as YAML. The finding points at the line and column where the
    parser stopped.

    Why: opm, OLM and the API server cannot read the file, so the bundle cannot be built or
    installed. Nothing else in the file is checked until it parses.

    Fix: correct the syntax at the position shown (often an indentation slip, a tab, a missing
    `:` or an unclosed quote or bracket).

    Bad:
        spec:
          displayName: "My operator
    Good:
        spec:
          displayName: "My operator"
    """)

define("yaml-duplicate-key", "error", "A YAML mapping repeats a key", mixed=True, explanation="""
    What: the same key appears twice in one mapping. An error when the two values differ; a
    warning when they are the same (nothing is lost yet, but an edit to one copy will be).

    Why: YAML loaders keep only the last value without a word, so what you see in the first
    place is not what OLM gets (a duplicated `spec:` loses half of the spec).

    Fix: remove one of them, or merge their contents.

    Bad:
        metadata:
          name: a
          name: b
    Good:
        metadata:
          name: b
    """)

define("yaml-limits", "error", "A file is refused: too large, too deep, an alias bomb, binary, not UTF-8, or a symlink out of the tree", """
    What: olm-check refuses to read a file that is larger than its size limit (16 MiB by
    default), nests deeper than its depth limit (128), expands aliases past its limit (an
    "alias bomb"), is binary or not UTF-8, or is a symbolic link pointing outside the checked
    tree.

    Why: such files are either mistakes (a binary in manifests/, a link to a developer's
    machine) or attacks on the checker; catalog tooling and the API server refuse them too.

    Fix: replace the file with the plain UTF-8 YAML it should be. Limits can be raised in
    `.olm-check.yaml` (`limits: {max_file_mib, max_depth, max_alias_nodes}`) when a file is
    genuinely that large.
    """)


def file_problems(files, bundle_rel=None):
    for sf in files:
        for p in sf.problems:
            if p.rule in ("yaml-syntax", "yaml-duplicate-key", "yaml-limits", "bundle-layout"):
                yield finding(p.rule, sf, None, p.message, line=p.line, column=p.column, severity=p.severity)


@check("bundle")
def yaml_problems(bundle: Bundle, ctx):
    yield from file_problems(bundle.files)
    if bundle.dockerfile is not None:
        for p in bundle.dockerfile.problems:
            yield finding(p.rule, bundle.dockerfile.file, None, p.message, line=p.line, column=p.column)


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
KNOWN_MEDIATYPES = (REGISTRY_V1, K8S_V1, PLAIN_V0, "helm")


@rule("bundle-layout", "error", "The bundle directory is not laid out as a bundle")
def bundle_layout(bundle: Bundle, ctx):
    """
    What: a bundle directory needs `manifests/` (the Kubernetes objects), `metadata/` and
    `metadata/annotations.yaml` with a known mediatype (`registry+v1` for the classic format,
    `k8s+v1`/`plain+v0` for plain Kubernetes bundles). olm-check reports half-formed bundle
    directories instead of skipping them.

    Why: opm cannot build a bundle image, and catalog CI rejects the pull request, when one of
    them is missing.

    Fix: create the missing directory or file (`operator-sdk generate bundle` writes all of
    them), or remove the stray directory.

    Bad:  operators/foo/1.0.0/manifests/... with no metadata/annotations.yaml
    Good: operators/foo/1.0.0/{manifests/,metadata/annotations.yaml}
    """
    d = bundle.rel
    has_manifests = os.path.isdir(os.path.join(bundle.path, "manifests"))
    has_metadata = os.path.isdir(os.path.join(bundle.path, "metadata"))
    if not has_manifests:
        yield finding("bundle-layout", d, None, f"the bundle directory {d} has no manifests/ directory, so there is nothing for OLM to install. Add manifests/ with the ClusterServiceVersion and the CRDs, or remove this directory.")
    elif not bundle.manifest_files:
        yield finding("bundle-layout", bundle.sub("manifests"), None, "manifests/ is empty: there is nothing for OLM to install. Add the ClusterServiceVersion and the CRDs.")
    if not has_metadata:
        yield finding("bundle-layout", d, None, f"the bundle directory {d} has no metadata/ directory; opm needs metadata/annotations.yaml to know the package, channels and format. Add it (operator-sdk generate bundle writes it).")
    elif bundle.annotations_file is None:
        yield finding("bundle-layout", bundle.sub("metadata"), None, "metadata/ has no annotations.yaml; opm needs it to know the package, channels and format. Add metadata/annotations.yaml with the operators.operatorframework.io.bundle.* annotations.")
    for where, msg in bundle.layout_problems:
        yield finding("bundle-layout", where, None, msg)
    af = bundle.annotations_file
    if af is not None and af.readable:
        doc = af.documents[0] if af.documents else None
        if not isinstance(doc, Mapping) or not isinstance(doc.get("annotations"), Mapping):
            node = doc if doc is not None else None
            yield finding("bundle-layout", af, node, "annotations.yaml must hold a mapping under the top-level key 'annotations:'; opm finds no bundle annotations here. Put every operators.operatorframework.io.bundle.* key under 'annotations:'.")
            return
        ann = bundle.annotations
        mt = ann.get(MEDIATYPE_KEY)
        if mt is None:
            yield finding("bundle-layout", af, ann, f"the mediatype annotation {MEDIATYPE_KEY} is missing, so opm does not know the bundle format. Add '{MEDIATYPE_KEY}: registry+v1'.")
        elif not isinstance(mt, Scalar) or mt.value not in KNOWN_MEDIATYPES:
            shown = mt.raw if isinstance(mt, Scalar) else mt.type_name()
            yield finding("bundle-layout", af, mt, f"the mediatype '{shown}' is not one opm knows ({', '.join(KNOWN_MEDIATYPES[:3])}). Write 'registry+v1' for a bundle with a ClusterServiceVersion.")


from . import refusal as _refusal  # noqa: E402  (kept beside the rule it serves)

_OPM_ANNOTATIONS = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
_OPM_DEFAULT = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/registry/populator.go"
_CI_DOCKERFILE = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/entrypoints/bundle_dockerfile.py"


@rule("bundle-annotations", "error", "Required bundle annotations are missing or inconsistent", mixed=True, refused_by=[
    _refusal("opm", "`opm alpha bundle validate` (and the index build) refuses a bundle whose annotations.yaml lacks the "
             "mediatype, manifests, metadata, package or channels key, or sets an empty default channel", _OPM_ANNOTATIONS),
    _refusal("opm", "`opm index add` refuses a package whose default channel, taken from its highest-version bundle, is not "
             "one of the package's channels (\"unable to determine default channel\")", _OPM_DEFAULT),
    _refusal("catalog-ci", "the catalog pipeline builds the bundle image from a Dockerfile it generates from annotations.yaml, "
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
    if bundle.mediatype not in (REGISTRY_V1, None):
        return  # plain bundles have their own rules
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
            yield finding("bundle-annotations", af, ann, f"the required annotation {key} ({what}) is missing; opm cannot place the bundle. Add it.",
                          severity="error")
        elif not isinstance(v, Scalar) or not isinstance(v.value, str) or not v.value.strip():
            yield finding("bundle-annotations", af, v, f"{key} must be a non-empty string ({what}).", severity="error")
    channels = []
    ch = ann.get(CHANNELS_KEY)
    if isinstance(ch, Scalar) and isinstance(ch.value, str):
        channels = [c.strip() for c in ch.value.split(",")]
        if any(c == "" for c in channels):
            yield finding("bundle-annotations", af, ch, f"the channel list '{ch.value}' has an empty entry; write the channel names separated by commas without gaps.",
                          severity="error")
        channels = [c for c in channels if c]
    dflt = ann.get(DEFAULT_KEY)
    if isinstance(dflt, Scalar):
        value = dflt.value.strip() if isinstance(dflt.value, str) else None
        if not value:
            # opm's annotation validation: the key may be left out, but not left empty
            yield finding("bundle-annotations", af, dflt,
                          f"the default channel annotation {DEFAULT_KEY} is empty; opm refuses an empty default channel. Set it to one of "
                          f"the package's channels{' (' + ', '.join(channels) + ')' if channels else ''}, or remove the key.",
                          severity="error")
        elif channels and value not in channels and not in_catalog:
            # a bundle on its own: the package may have this channel from earlier bundles
            yield finding("bundle-annotations", af, dflt,
                          f"the default channel '{value}' is not one of this bundle's channels ({', '.join(channels)}). The package's "
                          f"default channel comes from its highest-version bundle and must be a channel some bundle of the package is in: "
                          f"unless earlier bundles of the package are in '{value}', opm refuses the package. Set it to one of "
                          f"{', '.join(channels)}, or add '{value}' to {CHANNELS_KEY}.",
                          severity="warning")
    for key, value in ((MANIFESTS_KEY, "manifests/"), (METADATA_KEY, "metadata/")):
        v = ann.get(key)
        if isinstance(v, Scalar) and isinstance(v.value, str) and v.value.strip() and v.value.strip().rstrip("/") != value.rstrip("/"):
            why = ("the catalog pipeline builds the bundle image with COPY from the directory this annotation names, so the image "
                   "would miss its content" if in_catalog else "opm reads the bundle from this directory whatever the annotation says, "
                   "so the annotation misleads")
            yield finding("bundle-annotations", af, v, f"{key} is '{v.value}', but bundles keep this content in '{value}'; {why}. Write '{value}'.",
                          severity="error" if in_catalog else "warning")
    df = bundle.dockerfile
    if df is not None and not in_catalog:
        for key, _w in required + [(DEFAULT_KEY, ""), (MEDIATYPE_KEY, "")]:
            a = ann.get(key)
            lab = df.labels.get(key)
            if isinstance(a, Scalar) and lab is not None and str(a.value) != lab.value:
                yield finding("bundle-annotations", df.file, None,
                              f"the LABEL {key}={lab.value} differs from metadata/annotations.yaml ('{a.value}'); opm reads annotations.yaml, "
                              f"so the image's labels mislead whoever inspects them. Make them the same.",
                              severity="warning", line=lab.line, column=lab.column)


@rule("manifest-invalid", "error", "A manifest lacks apiVersion, kind or metadata.name, or has the wrong shape")
def manifest_invalid(bundle: Bundle, ctx):
    """
    What: every document in manifests/ must be a Kubernetes object: a mapping with
    `apiVersion`, `kind` and `metadata.name` as strings, and `metadata`/`spec` as mappings.

    Why: opm and the API server reject objects without them; a `spec: "text"` or a list where
    a mapping belongs fails the install.

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
            yield finding("manifest-invalid", sf, root, f"this document is {root.type_name()}, not a Kubernetes object (a mapping with apiVersion, kind and metadata). Remove it or write the object.")
            continue
        for key in ("apiVersion", "kind"):
            v = root.get(key)
            if v is None:
                yield finding("manifest-invalid", sf, root, f"the object has no {key}; opm and the API server cannot tell what it is. Add {key}.")
            elif not (isinstance(v, Scalar) and isinstance(v.value, str) and v.value):
                yield finding("manifest-invalid", sf, v, f"{key} must be a non-empty string, not {v.type_name()}.")
        md = root.get("metadata")
        if md is None:
            yield finding("manifest-invalid", sf, root, "the object has no metadata; add metadata with a name.")
        elif not isinstance(md, Mapping):
            yield finding("manifest-invalid", sf, md, f"metadata must be a mapping (with name, labels, annotations), not {md.type_name()}.")
        else:
            n = md.get("name")
            if n is None:
                if md.get("generateName") is None:
                    yield finding("manifest-invalid", sf, md, "metadata has no name; OLM cannot create an object without one. Add metadata.name.")
            elif not (isinstance(n, Scalar) and isinstance(n.value, str) and n.value):
                yield finding("manifest-invalid", sf, n, f"metadata.name must be a non-empty string, not {n.type_name()}.")
            for key in ("labels", "annotations"):
                v = md.get(key)
                if v is not None and not isinstance(v, Mapping) and not (isinstance(v, Scalar) and v.value is None):
                    yield finding("manifest-invalid", sf, v, f"metadata.{key} must be a mapping of strings, not {v.type_name()}.")
                elif isinstance(v, Mapping):
                    for k, val in v.items():
                        if not isinstance(val, Scalar):
                            yield finding("manifest-invalid", sf, val,
                                          f"the value of {key[:-1]} '{k.value if isinstance(k, Scalar) else '?'}' is {val.type_name()}; Kubernetes "
                                          f"requires a string here and rejects the object. Write it as a quoted string (JSON text for structured values).")
                        elif val.value is not None and not isinstance(val.value, str):
                            yield finding("manifest-invalid", sf, val,
                                          f"the value of {key[:-1]} '{k.value}' is {val.type_name()} ({val.raw}); Kubernetes requires strings here and rejects the object. Quote it: \"{val.raw}\".")
        spec = root.get("spec")
        if spec is not None and not isinstance(spec, Mapping) and not (isinstance(spec, Scalar) and spec.value is None):
            yield finding("manifest-invalid", sf, spec, f"spec must be a mapping, not {spec.type_name()}; the API server rejects the object.")


@rule("csv-missing", "error", "The bundle has no ClusterServiceVersion, or more than one")
def csv_missing(bundle: Bundle, ctx):
    """
    What: a registry+v1 bundle holds exactly one ClusterServiceVersion in manifests/.

    Why: the CSV is what OLM installs; without it the bundle is not an operator, and with two
    opm cannot tell which one the bundle is.

    Fix: add the CSV (`operator-sdk generate bundle`), or remove the extra one (old CSVs belong
    in their own version directory).
    """
    if bundle.mediatype not in (REGISTRY_V1, None) or not bundle.manifest_files:
        return
    csvs = bundle.csvs
    if not csvs:
        if not bundle.readable:
            return  # a file failed to parse: yaml-syntax/yaml-limits already says why
        yield finding("csv-missing", bundle.sub("manifests"), None,
                      "manifests/ has no ClusterServiceVersion (kind: ClusterServiceVersion); OLM has nothing to install. Add the CSV for this version.")
    elif len(csvs) > 1:
        names = ", ".join(f"{c.name} ({c.file.rel})" for c in csvs)
        for c in csvs[1:]:
            yield finding("csv-missing", c.file, c.root,
                          f"the bundle holds {len(csvs)} ClusterServiceVersions ({names}); a bundle is one version of one operator. Move each other CSV to its own version directory.")
