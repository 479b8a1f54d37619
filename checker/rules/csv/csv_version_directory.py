"""
What: in a catalog repository (`operators/<name>/<version>/`), the version directory's
name equals the CSV's `spec.version`.

Why: catalog CI (`check_operator_version_directory_name`, since January 2026) fails the
pull request otherwise, and people and tools find bundles by that directory. (A few
bundles merged before the check, e.g. a directory 0.4.1 holding version 0.4.0, which
duplicates the 0.4.0 bundle's version.)

Fix: rename the directory to the version, or correct `spec.version`.

Bad:  operators/my-operator/v1.2.3/ with `version: 1.2.3`
Good: operators/my-operator/1.2.3/ with `version: 1.2.3`
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal
from ..lib.csv import the_csv
from ..lib.csv_metadata import PIPE_COMMON
from ..lib.text import clip, text

RULE = define("csv-version-directory", "In a catalog repository, the version directory differs from spec.version", __doc__,
              category="csv", refused_by=[refusal("catalog-ci", "check_operator_version_directory_name fails a bundle whose directory name is not its CSV's "
                          "spec.version (added January 2026)", PIPE_COMMON)])


@RULE.check
def csv_version_directory(bundle: Bundle, ctx: Context):
    if bundle.version_dir is None:
        return
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    v = sp.get("version") if sp is not None else None
    s = text(v)
    if s is None:
        if isinstance(v, Scalar) and v.value is not None and not isinstance(v.value, str):
            s = v.raw
        else:
            return
    if s != bundle.version_dir:
        yield RULE.at(csv.file, v,
                      f"the bundle sits in the directory '{clip(bundle.version_dir, 40)}' but its spec.version is '{clip(s, 40)}'.",
                      detail=f"Catalog CI requires operators/{bundle.operator}/<spec.version>/. Rename the directory to '{s}', "
                      "or correct spec.version.")
