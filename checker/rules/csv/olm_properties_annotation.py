"""
What: the CSV carries the `olm.properties` annotation.

Why: bundle properties (such as `olm.maxOpenShiftVersion`) belong in
`metadata/properties.yaml`, which opm reads when it builds the catalog; OLM itself writes
`olm.properties` onto installed CSVs from the catalog's properties, and operator-sdk's
validator warns that the annotation should move. It still works (OLM reads it), so this
is a warning. An annotation holding only `olm.maxOpenShiftVersion` is not reported: the
OpenShift documentation itself tells authors to declare it that way.

Fix: move the properties to metadata/properties.yaml and remove the annotation.

Bad:
    metadata:
      annotations:
        olm.properties: '[{"type": "olm.maxOpenShiftVersion", "value": "4.16"}]'
Good (metadata/properties.yaml):
    properties:
      - type: olm.maxOpenShiftVersion
        value: "4.16"
"""
from __future__ import annotations

import json

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define
from ..lib.csv import the_csv

RULE = define("olm-properties-annotation", "olm.properties is set on the CSV: prefer metadata/properties.yaml", __doc__,
              category="csv")


@RULE.check
def olm_properties_annotation(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    if ann is None or "olm.properties" not in ann:
        return
    v = ann.get("olm.properties")
    if isinstance(v, Scalar) and isinstance(v.value, str):
        try:
            props = json.loads(v.value)
        except ValueError:
            props = None
        if isinstance(props, list) and props and all(isinstance(p, dict) and p.get("type") == "olm.maxOpenShiftVersion" for p in props):
            return  # the OpenShift documentation's own way to set maxOpenShiftVersion (measured: most uses)
    k = ann.key_node("olm.properties")
    yield RULE.at(csv.file, k,
                  "the CSV sets olm.properties; bundle properties belong in metadata/properties.yaml.",
                  detail="opm reads them from there into the catalog, and OLM writes this annotation itself on install. Move "
                  "the entries to metadata/properties.yaml ('properties: [{type: ..., value: ...}]') and remove the annotation.")
