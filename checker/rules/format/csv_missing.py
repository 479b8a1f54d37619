"""
What: a registry+v1 bundle holds exactly one ClusterServiceVersion in manifests/.

Why: the CSV is what OLM installs; without it the bundle is not an operator (opm: "no csv
in bundle"), and with two opm keeps only the first while operator-sdk's bundle validation,
run by catalog CI, fails ("invalid bundle: contains multiple CSVs").

Fix: add the CSV (`operator-sdk generate bundle`), or remove the extra one (old CSVs belong
in their own version directory).
"""
from __future__ import annotations

from ...context import Context
from ...model import REGISTRY_V1, Bundle
from .. import define, refusal

OPM_PARSE = "https://github.com/operator-framework/operator-registry/blob/master/pkg/registry/parse.go"
API_LOADER = "https://github.com/operator-framework/api/blob/master/pkg/manifests/bundleloader.go"

RULE = define("csv-missing", "The bundle has no ClusterServiceVersion, or more than one", __doc__, category="format", refused_by=[
    refusal("opm", "opm's bundle parser refuses a bundle without a CSV (\"no csv in bundle\") and keeps only the "
            "first of several", OPM_PARSE),
    refusal("catalog-ci", "operator-sdk's bundle loader fails without a CSV (\"unable to find a csv\") or with "
            "several (\"contains multiple CSVs\")", API_LOADER),
])


@RULE.check
def csv_missing(bundle: Bundle, ctx: Context):
    if bundle.mediatype not in (REGISTRY_V1, None) or not bundle.manifest_files:
        return
    csvs = bundle.csvs
    if not csvs:
        if not bundle.readable:
            return  # a file failed to parse: yaml-syntax/yaml-limits already says why
        yield RULE.at(bundle.sub("manifests"), None, "manifests/ has no ClusterServiceVersion",
                      detail="OLM has nothing to install, and opm refuses the bundle (\"no csv in bundle\"). Add the CSV "
                      "(kind: ClusterServiceVersion) for this version.")
    elif len(csvs) > 1:
        names = ", ".join(f"{c.name} ({c.file.rel})" for c in csvs)
        for c in csvs[1:]:
            yield RULE.at(c.file, c.root, f"the bundle holds {len(csvs)} ClusterServiceVersions; this one, {c.name}, is extra",
                          detail=f"A bundle is one version of one operator: opm keeps only the first, and operator-sdk's "
                          f"validation fails (\"contains multiple CSVs\"). The CSVs: {names}. Move each other CSV to its "
                          "own version directory.")
