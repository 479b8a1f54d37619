"""
What: the CSV's `metadata.name` and `spec.replaces` must be DNS-1123 subdomain names
(lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit) of
at most 63 characters.

Why: the API server refuses objects with invalid names, and OLM writes the CSV name into
the `olm.owner` label of everything it creates, and label values are limited to 63
characters; operator-sdk's validator (run by catalog CI) fails such a bundle. A `replaces`
that is not a valid name can never match a CSV, so the upgrade edge is lost.

Refused by: the API server (object names) and operator-sdk's CSV validator, which the
catalog CI runs.

Fix: use `<package>.v<version>`, e.g. `my-operator.v1.2.3`, in lower case.

Bad:
    metadata:
      name: My_Operator.v1.0.0
Good:
    metadata:
      name: my-operator.v1.0.0
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal
from ..lib.csv import the_csv
from ..lib.csv_metadata import CSV_GO, name_problem
from ..lib.text import clip

RULE = define("csv-name", "metadata.name or spec.replaces is not a valid CSV name (DNS-1123, at most 63 characters)", __doc__,
              category="csv", refused_by=[
          refusal("api-server", "an object name that is not a DNS-1123 subdomain", "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"),
          refusal("catalog-ci", "operator-sdk bundle validate (operator-framework/api's CSV validator) fails a metadata.name or spec.replaces "
                  "that is not a DNS-1123 subdomain and a valid label value (at most 63 characters)", CSV_GO),
      ])


@RULE.check
def csv_name(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    md = csv.metadata
    n = md.get("name") if md is not None else None
    if isinstance(n, Scalar) and isinstance(n.value, str) and n.value:
        p = name_problem(n.value)
        if p:
            yield RULE.at(sf, n, f"the CSV name '{clip(n.value, 70)}' {p[0]}.",
                          detail=f"{p[1]} The API server and catalog CI refuse it. Use '<package>.v<version>' in lower case, "
                          "e.g. 'my-operator.v1.2.3'.")
    sp = csv.spec()
    r = sp.get("replaces") if sp is not None else None
    if isinstance(r, Scalar) and r.value is not None and not (isinstance(r.value, str) and not r.value.strip()):
        if not isinstance(r.value, str):
            yield RULE.at(sf, r, f"spec.replaces is {r.type_name()}, not the name of a CSV (a string).",
                          detail="spec.replaces is the name of the CSV this one replaces. Write the exact metadata.name of the "
                          "previous bundle's CSV.")
        else:
            p = name_problem(r.value)
            if p:
                yield RULE.at(sf, r, f"spec.replaces '{clip(r.value)}' {p[0]}.",
                              detail=f"{p[1]} It can never match a CSV, so the upgrade edge is lost. Write the exact "
                              "metadata.name of the previous bundle's CSV.")
