"""
What: an `olm.bundle` entry of a `catalogs/v4.17` (or later, `v5.0` too) catalog carries
`olm.bundle.object` properties (the bundle's manifests, base64-encoded) instead of
`olm.csv.metadata`.

Why: the community, certified and marketplace pipelines run
check_olm_bundle_object_in_fbc (common suite), which fails the pull request when a v4.17+
catalog's bundle uses `olm.bundle.object`: those catalogs are rendered with
`--migrate-level bundle-object-to-csv-metadata`. The check reads only the first
`olm.bundle` entry of each catalog file (it stops after one), so that entry is an error
and later ones are warnings (rendering the catalog again fixes them all).

Fix: render the catalog again with the pipeline's Makefile (`make catalogs`), or
`opm render ... --migrate-level bundle-object-to-csv-metadata`.

Bad:
    schema: olm.bundle
    properties:
      - type: olm.bundle.object
        value: {data: eyJhcGlWZXJzaW9uIjoi...}
Good:
    schema: olm.bundle
    properties:
      - type: olm.csv.metadata
        value: {displayName: Example, ...}
"""
from __future__ import annotations

import re

from ...catalogs import checked_operators
from ...context import Context
from ...model import Repository
from ...nodes import Mapping, Scalar, Sequence
from ...versions import vkey
from .. import define, refusal

# operator-pipelines@422dfd6e operatorcert/static_tests/common/operator_catalogs.py
# check_olm_bundle_object_in_fbc, operatorcert/utils.py is_catalog_v4_17_plus (a catalog named
# ^v\d+\.\d+$ at 4.17 or above, 5.0 too)
CHECK = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/"
         "static_tests/common/operator_catalogs.py")
_RELEASE = re.compile(r"v(\d+)\.(\d+)")

RULE = define("fbc-bundle-object", "A v4.17+ file-based catalog lists a bundle with olm.bundle.object properties", __doc__,
              category="catalog", refused_by=[
                  refusal("catalog-ci", "every Red Hat catalog's pipeline check check_olm_bundle_object_in_fbc fails a v4.17+ "
                          "catalog whose first olm.bundle carries an olm.bundle.object property", CHECK),
              ])


def v4_17_plus(release_dir: str) -> bool:
    m = _RELEASE.fullmatch(release_dir or "")
    if m is None:
        return False
    major, minor = int(m.group(1)), int(m.group(2))
    return major > 4 or (major == 4 and minor >= 17)


def _bundle_object(root):
    """The first olm.bundle.object property node of a bundle blob (or the blob), or None."""
    props = root.get("properties") if isinstance(root, (Mapping, dict)) else None
    items = list(props.items) if isinstance(props, Sequence) else props if isinstance(props, list) else []
    for p in items:
        t = p.get("type") if isinstance(p, (Mapping, dict)) else None
        t = t.value if isinstance(t, Scalar) else t
        if t == "olm.bundle.object":
            return p
    return None


@RULE.check(scope="repo")
def fbc_bundle_object(repo: Repository, ctx: Context):
    fbc = repo.fbc
    for name in sorted(checked_operators(repo)):
        oc = fbc.get(name)
        if oc is None:
            continue
        for ocp in sorted(oc.catalogs, key=vkey):
            cat = oc.catalogs[ocp]
            if cat.missing or not cat.readable or not v4_17_plus(cat.release_dir):
                continue
            first = True
            for blob in cat.blobs:
                if blob.schema != "olm.bundle":
                    continue
                node = _bundle_object(blob.root)
                if node is not None:
                    bname = blob.get("name")
                    bname = bname if isinstance(bname, str) else "?"
                    line, col = ((node.line, node.col) if isinstance(node, (Mapping, Scalar, Sequence))
                                 else (blob.pos.line, blob.pos.column))
                    if first:
                        yield RULE.at(cat.rel, None, f"bundle {bname} in the {cat.release_dir} catalog carries olm.bundle.object",
                                      ocp=[cat.ocp], line=line, column=col,
                                      detail="check_olm_bundle_object_in_fbc fails the pull request: a v4.17+ catalog "
                                      "must carry olm.csv.metadata instead. Render the catalog again (`make catalogs`, "
                                      "or opm render with --migrate-level bundle-object-to-csv-metadata).")
                    else:
                        yield RULE.at(cat.rel, None, f"bundle {bname} in the {cat.release_dir} catalog carries olm.bundle.object",
                                      ocp=[cat.ocp], line=line, column=col, kind="later",
                                      detail="check_olm_bundle_object_in_fbc reads only the catalog's first olm.bundle "
                                      "entry, so it does not refuse this one, but v4.17+ catalogs are rendered with "
                                      "olm.csv.metadata. Render the catalog again (`make catalogs`, or opm render "
                                      "with --migrate-level bundle-object-to-csv-metadata).")
                first = False
