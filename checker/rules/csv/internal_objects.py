"""
What: `operators.operatorframework.io/internal-objects` is a string holding a JSON array
of CRD names (`<plural>.<group>`) the CSV owns. Invalid JSON, something else than an
array of strings, or a name the CSV does not own are warnings; a YAML list instead of a
string is an error.

Why: the console hides these CRDs from users (no "Create" tile). It JSON.parses the value
and silently ignores a malformed one, so nothing is hidden; nothing refuses the bundle
for that (a warning). A YAML list instead of a JSON string cannot be decoded at all
(annotations are strings): the API server refuses the CSV. A name that matches no owned
CRD hides nothing (often a kind written where the CRD name belongs).

Fix: write a JSON array of owned CRD names.

Bad:
    operators.operatorframework.io/internal-objects: WidgetState
Good:
    operators.operatorframework.io/internal-objects: '["widgetstates.example.com"]'
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv import csv_annotation, owned_crds
from ..lib.csv_annotations import INTERNAL, json_string_array, not_a_string
from ..lib.sources import pos_in
from ..lib.text import clip, is_blank

RULE = define("internal-objects",
              "internal-objects is not a JSON array of strings, or names a CRD the CSV does not own", __doc__,
              category="csv", supersedes=("manifest-invalid",), refused_by=[refusal(*x) for x in not_a_string("list or mapping")])


@RULE.check
def internal_objects(bundle: Bundle, ctx: Context):
    csv, node = csv_annotation(bundle, INTERNAL)
    if node is None or is_blank(node):
        return
    sf = csv.file
    items, problems = json_string_array(sf, node, INTERNAL, RULE.at)
    yield from problems
    if items is None:
        return
    owned = {name: kind for name, _g, _v, kind, _e in owned_crds(csv)}
    by_kind = {kind: name for name, kind in owned.items()}
    for off, name in items:
        if name in owned:
            continue
        ln, col = pos_in(sf, node, off)
        hint = f" The owned CRD of kind {name} is '{by_kind[name]}': write that." if name in by_kind else ""
        yield RULE.at(sf, None, f"'{clip(name, 40)}' in {INTERNAL} is not a CRD this CSV owns.",
                      detail=f"The console hides nothing for it. Use the owned CRD's name (<plural>.<group>).{hint}",
                      line=ln, column=col)
