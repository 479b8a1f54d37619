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
from __future__ import annotations

from ...context import Context
from ...model import Bundle, Repository
from ...nodes import Mapping, Scalar
from .. import define, refusal
from ..lib.bundle_format import KNOWN_MEDIATYPES, MEDIATYPE_KEY, OPM_MEDIATYPES
from ..lib.loader_problems import problems, repo_files

OPM_VALIDATE = "https://github.com/operator-framework/operator-registry/blob/master/pkg/lib/bundle/validate.go"
API_LOADER = "https://github.com/operator-framework/api/blob/master/pkg/manifests/bundleloader.go"

RULE = define("bundle-layout", "The bundle directory is not laid out as a bundle", __doc__, category="format", refused_by=[
    refusal("opm", "`opm alpha bundle validate` fails without manifests/ or metadata/ (\"Unable to locate manifests "
            "directory\"), without an annotations file or with another mediatype; opm's bundle parser refuses a bundle "
            "with no objects or no annotations file (\"Could not find annotations file\")", OPM_VALIDATE),
    refusal("catalog-ci", "operator-sdk's bundle loader fails on a directory inside manifests/ (\"bundle manifests "
            "dir contains directory\")", API_LOADER),
    refusal("certification", "operator-framework/api's bundle loader (operator-sdk bundle validate, preflight) fails on a "
            "hidden file in manifests/ (\"bundle manifests dir has hidden file\")", API_LOADER),
])


def findings_in(files):
    """The loader's bundle-layout problems in ``files``, as findings."""
    for sf, p in problems(files, RULE.id):
        yield RULE.at(sf, None, p.message, line=p.line, column=p.column, detail=p.detail)


@RULE.check
def loader_problems(bundle: Bundle, ctx: Context):
    yield from findings_in(bundle.files)
    if bundle.dockerfile is not None:
        for p in bundle.dockerfile.problems:
            yield RULE.at(bundle.dockerfile.file, None, p.message, line=p.line, column=p.column, detail=p.detail)


@RULE.check(scope="repo")
def loader_problems_outside_bundles(repo: Repository, ctx: Context):
    yield from findings_in(repo_files(repo))


@RULE.check
def bundle_layout(bundle: Bundle, ctx: Context):
    d = bundle.rel
    refused = bundle.refused_dirs  # a link out of the tree: yaml-limits says so
    has_manifests, has_metadata = bundle.has_manifests_dir, bundle.has_metadata_dir
    if not has_manifests:
        yield RULE.at(d, None, "the bundle directory has no manifests/ directory",
                      detail="There is nothing for OLM to install, and `opm alpha bundle validate` stops at \"Unable to "
                      "locate manifests directory\". Add manifests/ with the ClusterServiceVersion and the CRDs, or remove "
                      "this directory.")
    elif not bundle.manifest_files and "manifests" not in refused:
        yield RULE.at(bundle.sub("manifests"), None, "manifests/ is empty",
                      detail="There is nothing for OLM to install, and opm refuses a bundle without objects. Add the "
                      "ClusterServiceVersion and the CRDs.")
    if not has_metadata:
        yield RULE.at(d, None, "the bundle directory has no metadata/ directory",
                      detail="opm needs metadata/annotations.yaml to know the package, channels and format (\"Could not "
                      "find annotations file\"). Add it (`operator-sdk generate bundle` writes it).")
    elif bundle.annotations_file is None and "metadata" not in refused and not bundle.annotations_dir:
        yield RULE.at(bundle.sub("metadata"), None, "metadata/ has no annotations.yaml",
                      detail="opm needs it to know the package, channels and format (\"Could not find annotations "
                      "file\"). Add metadata/annotations.yaml with the operators.operatorframework.io.bundle.* annotations.")
    for where, msg, why in bundle.layout_problems:
        yield RULE.at(where, None, msg, detail=why)
    for where in bundle.hidden_manifests:
        name = where.rsplit("/", 1)[-1]
        yield RULE.at(where, None, f"manifests/ holds the hidden file {name}", kind="hidden-file",
                      detail="operator-framework/api's bundle loader, which `operator-sdk bundle validate` and preflight run, "
                      "fails on it (\"bundle manifests dir has hidden file\"). Remove it from manifests/.")
    af = bundle.annotations_file
    if af is not None and af.readable:
        doc = af.documents[0] if af.documents else None
        if not isinstance(doc, Mapping) or not isinstance(doc.get("annotations"), Mapping):
            node = doc if doc is not None else None
            yield RULE.at(af, node, "annotations.yaml has no mapping under the top-level key 'annotations:'",
                          detail="opm finds no bundle annotations here. Put every operators.operatorframework.io.bundle.* "
                          "key under 'annotations:'.")
            return
        ann = bundle.annotations
        assert ann is not None  # the loader's, as the document's annotations mapping is
        mt = ann.get(MEDIATYPE_KEY)
        if mt is None:
            yield RULE.at(af, ann, f"the mediatype annotation {MEDIATYPE_KEY} is missing",
                          detail=f"opm does not know the bundle format without it. Add '{MEDIATYPE_KEY}: registry+v1'.")
        elif not isinstance(mt, Scalar) or mt.value not in KNOWN_MEDIATYPES:
            shown = mt.raw if isinstance(mt, Scalar) else mt.type_name()
            yield RULE.at(af, mt, f"the mediatype '{shown}' is not one opm knows ({', '.join(OPM_MEDIATYPES)})",
                          detail="opm refuses a bundle of another format. Write 'registry+v1' for a bundle with a "
                          "ClusterServiceVersion.")
