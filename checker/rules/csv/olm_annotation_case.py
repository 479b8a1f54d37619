"""
What: annotation keys OLM and the console read are case-sensitive: `olm.skipRange`,
`olm.substitutesFor`, `olm.properties`, `olm.operatorGroup`, `olm.targetNamespaces`,
`alm-examples`, `operatorframework.io/suggested-namespace`, ... A key that matches one of
them except for letter case is an error for the keys operator-framework/api checks
(olm.skipRange, olm.operatorGroup, olm.operatorNamespace, olm.targetNamespaces,
olm.providedAPIs), a warning for the others.

Why: a differently-cased key is a different key: OLM silently ignores `olm.skiprange`,
so the skip range (and the upgrade path it meant to open) does not exist.
operator-framework/api's annotation-name check (run by `operator-sdk bundle validate` in
the community catalog's CI) fails the bundle for its five keys; nothing refuses the
others, whose miscased form OLM or the console simply ignore.

Fix: write the key with the exact case.

Bad:
    olm.skiprange: '>=1.0.0 <1.2.0'
Good:
    olm.skipRange: '>=1.0.0 <1.2.0'
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.fixes import fix_key
from ..lib.text import text

API_ANNOTATION_NAMES = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/annotations.go"


RULE = define("olm-annotation-case", "An olm.* (or other OLM) annotation key has the wrong letter case", __doc__,
              category="csv", refused_by=[
          refusal("catalog-ci", "operator-framework/api's ValidateAnnotationNames (part of the CSV validator operator-sdk bundle "
                  "validate runs in the community catalog's CI) fails olm.skipRange, olm.operatorGroup, olm.operatorNamespace, "
                  "olm.targetNamespaces and olm.providedAPIs written in another letter case", API_ANNOTATION_NAMES),
      ])


@RULE.check
def olm_annotation_case(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    if ann is None:
        return
    known = {k.lower(): k for k in data()["case_sensitive_annotations"]}
    refused = set(data()["case_sensitive_refused"])
    for k, _v in ann.items():
        ks = text(k)
        if ks is None:
            continue
        want = known.get(ks.lower())
        if want is not None and ks != want:
            yield RULE.at(csv.file, k, f"the annotation key '{ks}' should be '{want}'.",
                          detail=f"Keys are case-sensitive, so OLM and the console ignore '{ks}' and what it sets has no effect"
                          + (" (operator-sdk bundle validate, run by the catalog's CI, fails it)" if want in refused else "")
                          + f". Rename it to '{want}'.",
                          kind="" if want in refused else "unvalidated-key",
                          fix=fix_key(csv.file, k, want, f"rename to {want}"))
