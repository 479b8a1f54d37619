"""
What: the CSV annotation `capabilities` is exactly one of `Basic Install`,
`Seamless Upgrades`, `Full Lifecycle`, `Deep Insights`, `Auto Pilot` (letter case and
spaces matter). An empty or missing annotation is a `csv-required-fields` warning.

Why: the console and OperatorHub show the capability level from it and filter by it.
Refused by operator-sdk's operatorhub validator (checkCapabilities, an error), which the
community catalog CI runs and fails on (its own required-fields check only warns).

Fix: write one of the five levels.

Bad:
    metadata:
      annotations:
        capabilities: Basic
Good:
    metadata:
      annotations:
        capabilities: Basic Install
"""
from __future__ import annotations

import difflib
import re

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_metadata import HUB_GO
from ..lib.fixes import fix_value
from ..lib.text import is_blank, shown, text

RULE = define("csv-capabilities", "The capabilities annotation is not one of the five capability levels", __doc__,
              category="csv", refused_by=[refusal("catalog-ci", "operator-sdk bundle validate --select-optional name=operatorhub (run by the catalog CI, which "
                          "fails on its errors) errors on a capabilities value outside the five levels", HUB_GO)])


@RULE.check
def csv_capabilities(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    v = ann.get("capabilities") if ann is not None else None
    if is_blank(v):
        return
    levels = data()["capabilities"]
    s = text(v)
    if s in levels:
        return
    norm = {re.sub(r"[\s_-]+", "", lv.lower()): lv for lv in levels}
    guess = norm.get(re.sub(r"[\s_-]+", "", (s or "").lower()))
    if guess is None and s:
        close = difflib.get_close_matches(s, levels, n=1, cutoff=0.6)
        guess = close[0] if close else None
    fix = fix_value(csv.file, v, guess, f"write '{guess}'") if guess and isinstance(v, Scalar) else None
    yield RULE.at(csv.file, v, f"the capabilities annotation '{shown(v)}' is not a capability level.",
                  detail="The console cannot show it and operator-sdk's validator (run by catalog CI) fails it. Write one of: "
                  f"{', '.join(levels)}" + (f" (probably '{guess}')." if guess else "."), fix=fix)
