"""
What: an `olm.bundle` entry of an operator's file-based catalog (`catalogs/v4.X/<operator>/`)
whose `image` does not start with one of the `allowed_bundle_registries` of the catalog
repository's root `config.yaml` (community-operators-prod:
`quay.io/community-operator-pipeline-prod/`, `quay.io/openshift-community-operators/`;
certified-operators: `registry.connect.redhat.com`).

Why: every Red Hat catalog's pipeline runs check_bundle_images_in_fbc (common suite), which
fails the pull request when a catalog lists a bundle image outside those registries (a
prefix match on the image reference). A bundle image pushed elsewhere is not one the
pipeline built and released.

Fix: point the entry at the image the pipeline released (render the catalog again from the
template with `make catalogs`), or correct the registry in the catalog template.

Bad:
    schema: olm.bundle
    image: quay.io/myorg/my-operator-bundle@sha256:...
Good:
    schema: olm.bundle
    image: quay.io/community-operator-pipeline-prod/my-operator@sha256:...
"""
from __future__ import annotations

from ...catalogs import checked_operators
from ...context import Context
from ...model import Repository
from ...nodes import Mapping, Scalar
from ...versions import vkey
from .. import define, refusal

# operator-pipelines@422dfd6e operatorcert/static_tests/common/operator_catalogs.py
# check_bundle_images_in_fbc (_get_bundle_registries_from_catalog, _filter_invalid_images)
CHECK = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/422dfd6e9876ec9fdfa2d053c6f9abd77fe3d058/"
         "operatorcert/static_tests/common/operator_catalogs.py")

RULE = define("fbc-bundle-registry", "A file-based catalog lists a bundle image outside the catalog's allowed registries",
              __doc__, category="catalog", refused_by=[
                  refusal("catalog-ci", "every Red Hat catalog's pipeline check check_bundle_images_in_fbc fails a catalog "
                          "whose olm.bundle image does not start with one of config.yaml's allowed_bundle_registries", CHECK),
              ])


@RULE.check(scope="repo")
def fbc_bundle_registry(repo: Repository, ctx: Context):
    allowed = ctx.catalog.bundle_registries if ctx.catalog is not None else []
    if not allowed:
        return  # the check returns when the config lists no registry
    fbc = repo.fbc
    for name in sorted(checked_operators(repo)):
        oc = fbc.get(name)
        if oc is None:
            continue
        for ocp in sorted(oc.catalogs, key=vkey):
            cat = oc.catalogs[ocp]
            if cat.missing or not cat.readable:
                continue
            for blob in cat.blobs:
                if blob.schema != "olm.bundle":
                    continue
                image = blob.get("image")
                if not isinstance(image, str) or not image or any(image.startswith(r) for r in allowed):
                    continue
                node = blob.root.get("image") if isinstance(blob.root, Mapping) else None
                line, col = (node.line, node.col) if isinstance(node, Scalar) else (blob.pos.line, blob.pos.column)
                bname = blob.get("name")
                bname = bname if isinstance(bname, str) else "?"
                yield RULE.at(cat.rel, None, f"the bundle image '{image}' is outside the allowed registries",
                              ocp=[cat.ocp], line=line, column=col,
                              detail=f"It is the image of {bname} in the {cat.release_dir} catalog. "
                              "check_bundle_images_in_fbc fails the pull request: the catalog repository's "
                              f"config.yaml allows bundle images only from {', '.join(allowed)}. Use the bundle image the "
                              "pipeline released there (render the catalog again with `make catalogs`).")
