"""
What: `operatorframework.io/initialization-resource` is a string holding one JSON object
with `apiVersion` and `kind` of a CRD the CSV owns and a `metadata.name`. Text written as
YAML rather than JSON, invalid JSON, an object without metadata.name or of a kind the
CSV does not own are warnings; a YAML mapping instead of a string is an error.

Why: after install the console offers to create this resource (the operator needs it to
start working). The console `JSON.parse`s the value and keeps it only when it has a
metadata.name: YAML, invalid JSON or a nameless object are silently dropped, and the
user is never offered the resource. Nothing refuses the bundle for that (a warning). A
kind the operator does not own has no CRD to create it with. A YAML mapping as the
annotation's value cannot be decoded at all (annotations are strings): the API server
refuses the CSV.

Fix: write the object as JSON with the apiVersion/kind of an owned CRD and a name.

Bad:
    operatorframework.io/initialization-resource: '{"kind": "Widget"'
Good:
    operatorframework.io/initialization-resource: '{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "default"}}'
"""
from __future__ import annotations

import json

import yaml

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal
from ..lib.csv import csv_annotation, owned_crds
from ..lib.csv_annotations import group_version, not_a_string
from ..lib.json_values import json_type, load_json
from ..lib.text import clip, is_blank

INIT = "operatorframework.io/initialization-resource"


RULE = define("initialization-resource",
              "initialization-resource is not a JSON object the console can read, or its kind is not an owned CRD", __doc__,
              category="csv", supersedes=("manifest-invalid",), refused_by=[refusal(*x) for x in not_a_string("mapping")])


@RULE.check
def initialization_resource(bundle: Bundle, ctx: Context):
    csv, node = csv_annotation(bundle, INIT)
    if node is None:
        return
    sf = csv.file
    if not (isinstance(node, Scalar) and isinstance(node.value, str)):
        yield RULE.at(sf, node, f"{INIT} is {node.type_name()}, not a string holding the object as JSON.", kind="schema",
                      detail="Annotations are strings: the API server refuses the CSV. Write the object as JSON text in a "
                      "block: '|-' followed by the JSON.")
        return
    if is_blank(node):
        yield RULE.at(sf, node, f"{INIT} is empty.",
                      detail="The console has no resource to offer. Write the object as JSON, or remove the annotation.")
        return
    doc, err = load_json(sf, node)
    if err is not None:
        try:
            doc = yaml.safe_load(node.value)
        except yaml.YAMLError:
            doc = None
        if not isinstance(doc, dict):
            yield RULE.at(sf, None, f"{INIT} is not valid JSON: {err.reason}.",
                          detail=err.at() + "The console JSON.parses it and silently drops it, so users are never offered the resource. "
                          "Fix the JSON at this position.", line=err.line, column=err.column)
            return
        try:
            as_json = json.dumps(doc, separators=(", ", ": "), default=str)
        except (TypeError, ValueError):
            as_json = None
        shown_json = f" Write it as JSON: {as_json}" if as_json and len(as_json) <= 300 else " Write it as JSON."
        yield RULE.at(sf, node, f"{INIT} is written as YAML, not JSON.",
                      detail="The console JSON.parses it and silently drops it, so users are never offered the "
                      f"{doc.get('kind') or 'resource'} after install.{shown_json}")
    if not isinstance(doc, dict):
        yield RULE.at(sf, node, f"{INIT} holds {json_type(doc)}, not one object.",
                      detail="It must be one object with apiVersion, kind and metadata.")
        return
    av, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(av, str) or not isinstance(kind, str) or not av or not kind:
        yield RULE.at(sf, node, f"the {INIT} object has no apiVersion or kind.",
                      detail="The console cannot tell what to create. Add them.")
        return
    md = doc.get("metadata")
    if err is None and not (isinstance(md, dict) and md.get("name")):
        yield RULE.at(sf, node, f"the {INIT} object has no metadata.name.",
                      detail="The console keeps the resource only when it has a name and silently drops it otherwise. Add "
                      "\"metadata\": {\"name\": \"...\"}.")
    g, v = group_version(av)
    owned = [(og, ov, ok) for _n, og, ov, ok, _e in owned_crds(csv)]
    if (g, v, kind) in owned:
        return
    same = [f"{og}/{ov}" for og, ov, ok in owned if ok == kind]
    hint = f" The CSV owns {kind} as {', '.join(same)}: use that apiVersion." if same else ""
    yield RULE.at(sf, node, f"the {INIT} is a {clip(kind, 30)} ({clip(av, 30)}), not a CRD this CSV owns.",
                  detail=f"The console cannot create it for the operator.{hint or ' Use the apiVersion and kind of an owned CRD.'}")
