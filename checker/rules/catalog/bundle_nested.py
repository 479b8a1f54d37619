"""
What: a bundle (a directory with `manifests/` and `metadata/`) deeper than
`operators/<name>/<version>/`, such as `operators/foo/1.0.0/bundle/` or
`operators/foo/1.0.0/certification/`.

Why: the community, certified and marketplace pipelines find a pull request's bundle with
operator-pipelines' detect-changes, which takes `operators/<name>/<version>/` as a bundle
only when that directory itself holds `manifests/` and `metadata/` (operator_repo's
Bundle.probe). The files of a nested bundle count as operator files (like ci.yaml): the
pull request carries no bundle, so nothing refuses it, and nothing builds, tests or
releases it either. The bundle never reaches a catalog.

Fix: move `manifests/` and `metadata/` (and `tests/`) up into
`operators/<name>/<version>/`.

Bad:  operators/foo/1.0.0/bundle/manifests/foo.clusterserviceversion.yaml
Good: operators/foo/1.0.0/manifests/foo.clusterserviceversion.yaml
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define

# operator-pipelines@422dfd6e operatorcert/entrypoints/detect_changed_operators.py
# _find_directory_owner / is_operator_bundle_dir and operatorcert/operator_repo/core.py Bundle.probe:
# a file belongs to a bundle only when operators/<name>/<version>/ itself holds manifests/ and metadata/
# https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/entrypoints/detect_changed_operators.py

RULE = define("bundle-nested", "A bundle directory sits below operators/<name>/<version>/, where the catalog pipelines never release it",
              __doc__, category="catalog")


def nested_in(rel: str):
    """(operator, version directory) when ``rel`` is a directory below operators/<name>/<version>/
    (deeper than a bundle's place), else None."""
    parts = [p for p in rel.replace("\\", "/").split("/") if p and p != "."]
    for i, p in enumerate(parts):
        if p == "operators" and len(parts) - i > 3:
            return parts[i + 1], parts[i + 2]
    return None


@RULE.check
def bundle_nested(bundle: Bundle, ctx: Context):
    if bundle.operator is not None:
        return
    where = nested_in(bundle.rel)
    if where is None:
        return
    op, ver = where
    yield RULE.at(bundle.rel, None,
                  f"this bundle is nested below operators/{op}/{ver}/, where the catalog pipelines never find a bundle",
                  detail=f"detect-changes takes operators/{op}/{ver}/ as a bundle only when it holds manifests/ and "
                  "metadata/ itself; these files count as operator files, so the pull request carries no bundle and "
                  f"nothing builds or releases this one. Move manifests/ and metadata/ up into operators/{op}/{ver}/.")
