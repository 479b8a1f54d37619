"""
What: the CSV's `marketplace.openshift.io/remote-workflow` annotation must be exactly
`https://marketplace.redhat.com/en-us/operators/<package>/pricing?utm_source=openshift_console`
and `marketplace.openshift.io/support-workflow` exactly
`https://marketplace.redhat.com/en-us/operators/<package>/support?utm_source=openshift_console`,
where `<package>` is the bundle's `operators.operatorframework.io.bundle.package.v1`.

Why: the redhat-marketplace catalog's pipeline runs check_marketplace_annotation
(operator-pipelines, isv suite, only where the repository's config.yaml says
`organization: redhat-marketplace`) and fails the pull request on any other value or a
missing annotation. Other catalogs do not check it (off there).

Fix: set both annotations in `metadata.annotations` of the CSV to the URLs shown.

Bad:
    metadata:
      annotations:
        marketplace.openshift.io/remote-workflow: https://marketplace.redhat.com/en-us/operators/foo/pricing
Good:
    metadata:
      annotations:
        marketplace.openshift.io/remote-workflow: https://marketplace.redhat.com/en-us/operators/foo/pricing?utm_source=openshift_console
        marketplace.openshift.io/support-workflow: https://marketplace.redhat.com/en-us/operators/foo/support?utm_source=openshift_console
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal

# operator-pipelines@422dfd6e operatorcert/static_tests/isv/bundle.py check_marketplace_annotation
# (runs only where the catalog repository's config.yaml says organization: redhat-marketplace)
ISV_BUNDLE = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/"
              "static_tests/isv/bundle.py")
BASE = "https://marketplace.redhat.com/en-us/operators/"
KEYS = (("marketplace.openshift.io/remote-workflow", "pricing"),
        ("marketplace.openshift.io/support-workflow", "support"))


def expected(package: str, page: str) -> str:
    return f"{BASE}{package}/{page}?utm_source=openshift_console"


RULE = define("marketplace-annotation", "A redhat-marketplace CSV lacks the marketplace workflow annotations its package needs", __doc__,
      category="csv", refused_by=[
          refusal("catalog-ci", "redhat-marketplace's pipeline check check_marketplace_annotation fails a CSV whose "
                  "marketplace.openshift.io/remote-workflow or support-workflow annotation is not the package's "
                  "marketplace pricing or support URL", ISV_BUNDLE),
      ])


@RULE.check
def marketplace_annotation(bundle: Bundle, ctx: Context):
    csv = bundle.csv
    package = bundle.package
    if csv is None or not package:
        return  # csv-missing / bundle-annotations say why
    ann = csv.annotations()
    for key, page in KEYS:
        want = expected(package, page)
        node = ann.get(key) if ann is not None else None
        if node is None:
            where = ann if ann is not None else (csv.metadata if csv.metadata is not None else csv.root)
            yield RULE.at(csv.file, where, f"the CSV has no {key} annotation",
                          detail=f"redhat-marketplace's pipeline (check_marketplace_annotation) fails the pull request "
                          f"without it. Add to metadata.annotations: {key}: {want}")
            continue
        got = node.value if isinstance(node, Scalar) else None
        if got != want:
            shown = node.raw if isinstance(node, Scalar) else node.type_name()
            yield RULE.at(csv.file, node, f"{key} is not package {package}'s marketplace {page} URL",
                          detail=f"It is '{shown}'; redhat-marketplace's pipeline (check_marketplace_annotation) requires "
                          f"exactly {want} and fails the pull request otherwise. Write that URL.")
