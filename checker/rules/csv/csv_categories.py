"""
What: the CSV annotation `categories` is a comma-separated list of standard categories
(AI/Machine Learning, Application Runtime, Big Data, Cloud Provider, Database, Developer
Tools, Integration & Delivery, Logging & Tracing, Modernization & Migration, Monitoring,
Networking, Observability, OpenShift Optional, Security, Storage, Streaming & Messaging).
A catalog with its own set lists it under `categories:` in `.olm-check.yaml`.

Why: OperatorHub files the operator under these categories, and a misspelt category
leaves the operator out of its section. Refused by `checkCategories`
(operator-framework/api pkg/validation/internal/standardcategories.go, an error): in the
community catalog CI through operator-sdk v1.36.1's operatorhub validator (api v0.23.0,
check_osdk_bundle_validate_operatorhub, which fails on its errors), in the certified
catalogs through preflight's ValidateOperatorBundle (StandardCategoriesValidator, api
v0.45.0). "Drivers and plugins" is on the community pipeline's own list (validations.py
CATEGORIES, read by check_required_fields) but in neither api version's set, so the
validator refuses it all the same (kind `pipeline-list-only`).

Fix: use the standard spelling, separated by commas.

Bad:
    categories: Developer tools, Logging
Good:
    categories: Developer Tools, Logging & Tracing
"""
from __future__ import annotations

import re

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_metadata import HUB_GO
from ..lib.fixes import dq, fix_value
from ..lib.text import clip, is_blank, text

RULE = define("csv-categories", "A category in the categories annotation is outside the standard set", __doc__,
              category="csv", refused_by=[refusal("catalog-ci", "operator-sdk bundle validate --select-optional name=operatorhub (run by the catalog CI, which "
                          "fails on its errors) errors on a category outside the standard set", HUB_GO)])


@RULE.check
def csv_categories(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    v = ann.get("categories") if ann is not None else None
    if v is None or is_blank(v):
        return
    allowed = list(ctx.config.categories) if ctx.config.categories else list(data()["categories"])
    s = text(v)
    if s is None:
        yield RULE.at(csv.file, v, f"the categories annotation is {v.type_name()}, not a comma-separated string.",
                      detail="Annotations are strings: the API server refuses the CSV. Write the categories in one string, "
                      "e.g. 'categories: Database, Monitoring'.")
        return
    items = [c.strip() for c in s.split(",")]
    lower = {a.lower(): a for a in allowed}
    bad, fixed, fixable = [], [], True
    listed_only = [] if ctx.config.categories else list(data().get("categories_pipeline_only") or [])
    for c in items:
        if c in allowed:
            fixed.append(c)
            continue
        if c in listed_only:
            yield RULE.at(csv.file, v,
                          f"the categories annotation has '{c}', which operator-sdk's and preflight's validators refuse.",
                          kind="pipeline-list-only",
                          detail=f"'{c}' is on the community pipeline's own list (check_required_fields accepts it) but not "
                          "in operator-framework/api's standard categories (standardcategories.go, v0.23.0 and v0.45.0): "
                          "operator-sdk's operatorhub validator, which the community catalog CI runs and fails on, and "
                          "preflight's ValidateOperatorBundle in the certified catalogs refuse it. Replace it with one of: "
                          f"{', '.join(allowed)}.")
            fixable = False
            continue
        if c == "":
            bad.append("(an empty entry)")
            continue
        bad.append(f"'{c}'")
        g = lower.get(c.lower()) or lower.get(re.sub(r"\s+", " ", c.lower().replace(" and ", " & ")))
        if g is None:
            fixable = False
        else:
            fixed.append(g)
    if not bad:
        return
    fix = None
    hint = ""
    if fixable and fixed:
        new = ", ".join(dict.fromkeys(fixed))
        hint = f" Write '{new}'."
        fix = fix_value(csv.file, v, new if v.style is None and not new.startswith(("&", "*")) else dq(new), "use the standard categories")
    listed = ", ".join(bad)
    yield RULE.at(csv.file, v,
                  f"the categories annotation has {clip(listed, 70)}, outside the standard set.",
                  detail=(f"Outside it: {listed}. " if len(listed) > 70 else "")
                  + "OperatorHub cannot file the operator there, and operator-sdk's operatorhub validator (community catalog "
                  "CI) and preflight's ValidateOperatorBundle (certified catalogs) fail it. "
                  f"Use only: {', '.join(allowed)}.{hint}", fix=fix)
