"""
What: in the `certified` profile (only there), the CSV sets every infrastructure feature
annotation Red Hat certification requires: `features.operators.openshift.io/` followed
by disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws,
token-auth-azure and token-auth-gcp ("true" or "false"; cnf, cni and csi are optional).
Other profiles do not report it (community catalogs do not require the annotations).

Why: preflight's RequiredAnnotations check, which certification enforces, fails a
bundle without them.

Fix: add each missing key, "false" where the operator does not support the feature.

Bad:
    features.operators.openshift.io/disconnected: "true"
    (the other six keys missing)
Good:
    features.operators.openshift.io/disconnected: "true"
    features.operators.openshift.io/fips-compliant: "false"
    features.operators.openshift.io/proxy-aware: "false"
    features.operators.openshift.io/tls-profiles: "false"
    features.operators.openshift.io/token-auth-aws: "false"
    features.operators.openshift.io/token-auth-azure: "false"
    features.operators.openshift.io/token-auth-gcp: "false"
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_annotations import PREFLIGHT_ANNOTATIONS, first_names
from ..lib.text import text

RULE = define("feature-annotations-required",
              "Red Hat certification: a required features.operators.openshift.io/* annotation is missing", __doc__,
              category="csv", refused_by=[
          refusal("certification", "preflight's RequiredAnnotations check (enforced) fails a bundle without all of "
                  "disconnected, fips-compliant, proxy-aware, tls-profiles, token-auth-aws, token-auth-azure and "
                  "token-auth-gcp", PREFLIGHT_ANNOTATIONS),
      ])


@RULE.check
def feature_annotations_required(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    fa = data()["feature_annotations"]
    prefix = fa["prefix"]
    present = {text(k) for k, _v in (ann.items() if ann is not None else ())}
    miss = [n for n in fa["required_certified"] if prefix + n not in present]
    if miss:
        md = csv.metadata
        at = ann if ann is not None else (md if md is not None else csv.root)
        lines = ", ".join(f'{prefix}{n}: "true|false"' for n in miss)
        names, _cut = first_names(miss, 60)
        yield RULE.at(csv.file, at,
                      f"{len(miss)} infrastructure feature annotation{'s' if len(miss) > 1 else ''} certification requires "
                      f"{'is' if len(miss) == 1 else 'are'} missing: {names}.",
                      detail="Red Hat certification requires every infrastructure feature annotation to be set. Add under "
                      f"metadata.annotations: {lines} (\"false\" where the operator does not support it).")
