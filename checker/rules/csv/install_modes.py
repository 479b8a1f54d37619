"""
What: `spec.installModes` lists install modes (`OwnNamespace`, `SingleNamespace`,
`MultiNamespace`, `AllNamespaces`), each once, each with a boolean `supported`, and at
least one supported. (A CSV without installModes is reported by `csv-required-fields`.)

Why: OLM matches the operator's OperatorGroup against these; with none supported (or an
empty list) the operator can be installed nowhere, a duplicate makes operator-sdk's
validator fail, an unknown type is ignored, and `supported: "true"` (a string) makes the
API server refuse the CSV. Refused by: OLM, operator-sdk's CSV validator (run by the
catalog CI) and the API server.

Fix: list each mode once with `supported: true` or `false`.

Bad:
    installModes:
      - {type: AllNamespaces, supported: false}
      - {type: AllNamespaces, supported: "true"}
Good:
    installModes:
      - {type: OwnNamespace, supported: true}
      - {type: SingleNamespace, supported: true}
      - {type: MultiNamespace, supported: false}
      - {type: AllNamespaces, supported: true}
"""
from __future__ import annotations

import difflib

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_metadata import CSV_CRD, CSV_GO
from ..lib.fixes import fix_value
from ..lib.text import clip, shown, text

RULE = define("install-modes", "installModes is empty, lists a mode twice or an unknown one, or supports none", __doc__,
              category="csv", refused_by=[
          refusal("catalog-ci", "operator-sdk bundle validate (operator-framework/api's CSV validator) fails duplicate install modes "
                  "and a CSV that supports none", CSV_GO),
          refusal("api-server", "the CSV CRD's schema requires each installMode entry to have a string type and a boolean supported", CSV_CRD),
          refusal("olm-install", "OLM refuses to install into an OperatorGroup whose mode the CSV does not support (UnsupportedOperatorGroup)",
                  "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/olm/operator.go"),
      ])


@RULE.check
def install_modes(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    im = sp.get("installModes") if sp is not None else None
    if im is None or (isinstance(im, Scalar) and im.value is None) or (isinstance(im, Scalar) and text(im) == ""):
        return  # missing: csv-required-fields
    sf = csv.file
    known = data()["install_modes"]
    if not isinstance(im, Sequence):
        yield RULE.at(sf, im, f"spec.installModes is {im.type_name()}, not a list of '{{type, supported}}' entries.",
                      detail="The API server refuses the CSV. List the four modes, e.g. '- {type: AllNamespaces, supported: true}'.")
        return
    if len(im) == 0:
        yield RULE.at(sf, im, "spec.installModes is empty, so the operator supports no install mode.",
                      detail="OLM installs it nowhere. List the four modes with 'supported: true/false'.")
        return
    seen: dict[str, int] = {}
    any_supported = False
    for e in im:
        if not isinstance(e, Mapping):
            yield RULE.at(sf, e, f"an install mode is {e.type_name()}, not a mapping '{{type: ..., supported: true|false}}'.",
                          detail="The CSV CRD's schema requires each entry to have a type and a boolean supported. Write "
                          "'- {type: AllNamespaces, supported: true}'.")
            continue
        t, sup = e.get("type"), e.get("supported")
        ts = text(t)
        if ts is None:
            yield RULE.at(sf, e if t is None else t, "this install mode has no type.", detail=f"Write one of {', '.join(known)}.")
        elif ts not in known:
            close = difflib.get_close_matches(ts, known, n=1, cutoff=0.6)
            lower = {k.lower(): k for k in known}.get(ts.lower())
            g = lower or (close[0] if close else None)
            yield RULE.at(sf, t, f"'{clip(ts)}' is not an install mode.",
                          detail=f"OLM ignores it. Write one of {', '.join(known)}" + (f" (probably '{g}')." if g else "."),
                          fix=fix_value(sf, t, g, f"write {g}") if g else None)
        elif ts in seen:
            yield RULE.at(sf, t, f"the install mode {ts} is listed twice (first at line {seen[ts]}).",
                          detail="operator-sdk's validator fails it, and which entry counts is unclear. Keep one.")
        else:
            seen[ts] = t.line
        if sup is None:
            yield RULE.at(sf, e, "this install mode has no 'supported'.", detail="Add 'supported: true' or 'supported: false'.")
        elif not (isinstance(sup, Scalar) and isinstance(sup.value, bool)):
            fix = None
            if isinstance(sup, Scalar) and isinstance(sup.value, str) and sup.value.strip().lower() in ("true", "false"):
                fix = fix_value(sf, sup, sup.value.strip().lower(), "write a boolean")
            yield RULE.at(sf, sup, f"'supported' is {sup.type_name()} ({shown(sup)}), not the boolean true or false.",
                          detail="The API server refuses the CSV. Write true or false without quotes.", fix=fix)
        elif sup.value and ts in known:
            any_supported = True
    if not any_supported and seen:
        yield RULE.at(sf, im, "no install mode is supported ('supported: true'), so OLM can install the operator nowhere.",
                      detail="Set 'supported: true' on the modes the operator handles (AllNamespaces for a cluster-wide operator).")
