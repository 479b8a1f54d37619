"""
What: the CSV annotation `alm-examples` (or `olm.examples`) is a string holding a JSON
array of example objects, each with `apiVersion` and `kind` of an API the CSV owns
(an owned CRD or API service). Invalid JSON is reported at the position of the error
inside the JSON, on the file's real line. Owned APIs without an example are one warning
per bundle, naming them (CRDs listed in `operators.operatorframework.io/internal-objects`
need none). An absent or empty annotation means "no examples".

Why: the console pre-fills its "Create" forms from these examples; invalid JSON breaks the
operator's page, and operator-framework/api's CSV validator reports it as an error, so
`operator-sdk bundle validate` (run by the community catalog's CI) fails the bundle; the
same validator fails an example of an API the operator does not own (it cannot be
created) and only warns about owned APIs without an example.

Fix: correct the JSON at the position shown (a missing comma, a trailing comma, single
quotes); make each example's apiVersion/kind match an owned CRD.

Bad:
    alm-examples: |-
      [{"apiVersion": "example.com/v1", "kind": "Widget",}]
Good:
    alm-examples: |-
      [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "example"}}]
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar
from .. import define, refusal
from ..lib.csv import examples_annotation, owned_apiservices, owned_crds, the_csv
from ..lib.csv_annotations import first_names, group_version, internal_names
from ..lib.json_values import json_array_items, json_type, load_json
from ..lib.sources import pos_in, scalar_positions
from ..lib.text import clip, is_blank

ALM = "alm-examples"

# Where the refusals are written (refused_by).
API_CSV_VALIDATOR = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/csv.go"

COMMUNITY_CI_SDK = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/"
                    "community/bundle.py")


RULE = define("alm-examples", "alm-examples is not a JSON array of examples of the APIs the CSV owns", __doc__,
              category="csv", refused_by=[
          refusal("catalog-ci", "operator-sdk bundle validate (run by the community catalog's static checks, which fail on its "
                  "errors) reports invalid example JSON, examples that are not a list of objects with apiVersion and kind, and an "
                  "example of an API the CSV does not own as errors (validateExamplesAnnotations)", API_CSV_VALIDATOR),
          refusal("catalog-ci", "the community catalog's CI runs operator-sdk bundle validate and fails the pull request on "
                  "its errors", COMMUNITY_CI_SDK),
      ])


@RULE.check
def alm_examples(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    ann = csv.annotations()
    key, node = examples_annotation(ann)
    examples = []  # (group, version, kind, line, col)
    if not is_blank(node):
        if not (isinstance(node, Scalar) and isinstance(node.value, str)):
            yield RULE.at(sf, node, f"{key} is {node.type_name()}, not a string holding a JSON array.",
                          detail=f"Annotations are strings: the API server refuses the CSV. Write it as a block: '{key}: |-' "
                          "followed by the JSON array.")
            return
        doc, err = load_json(sf, node)
        if err is not None:
            yield RULE.at(sf, None, f"{key} is not valid JSON: {err.reason}.",
                          detail=err.at() + "The console cannot show the examples and operator-sdk's validator (run by catalog CI) fails "
                          "the bundle. Fix the JSON at this position.", line=err.line, column=err.column)
            return
        items: list | tuple  # (offset, value) of each example
        if isinstance(doc, dict):
            yield RULE.at(sf, node, f"{key} holds a single JSON object, not a JSON array of examples.",
                          detail="It must be a JSON array of examples. Wrap it in [ ].")
            items = [(node.value.index("{"), doc)]
        elif not isinstance(doc, list):
            yield RULE.at(sf, node, f"{key} holds {json_type(doc)}, not a JSON array of example objects.",
                          detail="Write a JSON array of example objects, each with apiVersion, kind and metadata.")
            return
        else:
            items = json_array_items(node.value)
        mapped: list = []  # the scalar's character positions, mapped when a finding needs them

        def at(off: int, node=node) -> tuple:
            if not mapped:
                mapped.append(scalar_positions(sf, node) or [])
            return pos_in(sf, node, off, mapped[0])

        for off, item in items:
            if not isinstance(item, dict):
                ln, col = at(off)
                yield RULE.at(sf, None, f"an example in {key} is {json_type(item)}, not a JSON object.",
                              detail="Each example must be a JSON object with apiVersion, kind and metadata.", line=ln, column=col)
                continue
            av, kind = item.get("apiVersion"), item.get("kind")
            if not isinstance(av, str) or not av or not isinstance(kind, str) or not kind:
                ln, col = at(off)
                yield RULE.at(sf, None, f"an example in {key} has no apiVersion or kind.",
                              detail="The console cannot tell which API it is for. Add \"apiVersion\": \"<group>/<version>\" and "
                              "\"kind\".", line=ln, column=col)
                continue
            g, v = group_version(av)
            examples.append((g, v, kind, off))
    provided = {}
    for name, g, v, k, e in owned_crds(csv):
        if k and v:
            provided[(g, v, k)] = ("crd", name, e)
    for g, v, k, e in owned_apiservices(csv):
        if k and v:
            provided[(g, v, k)] = ("apiservice", f"{k}.{g}", e)
    if not provided and not examples:
        return
    have = set()
    for g, v, k, off in examples:
        have.add((g, v, k))
        if (g, v, k) not in provided:
            ln, col = at(off)
            av = f"{g}/{v}" if g else v
            same_kind = [f"{pg}/{pv}" if pg else pv for (pg, pv, pk) in provided if pk == k]
            hint = (f" The CSV owns {k} as {', '.join(sorted(same_kind))}: use that apiVersion." if same_kind
                    else " Remove it, or own the API (spec.customresourcedefinitions.owned).")
            yield RULE.at(sf, None, f"the example of {clip(k, 40)} ({clip(av, 35)}) is for an API this CSV does not own.",
                          detail=(f"The example is {k} ({av}). " if clip(k, 40) != k or clip(av, 35) != av else "") + "The console offers it on the operator's page but it belongs to no API the operator provides, and "
                          f"operator-sdk's validator fails it.{hint}", line=ln, column=col)
    internal = internal_names(ann)
    lacking = [(g, v, k, e) for (g, v, k), (what, name, e) in provided.items() if (g, v, k) not in have and name not in internal]
    if lacking:
        # one finding per bundle (measured: one per API made 9,000 warnings on the catalog)
        g, v, k, e = lacking[0]
        anchor = ann.key_node(key) if ann is not None and key in ann else (
            e.get("kind") if isinstance(e, Mapping) and e.get("kind") is not None else e)
        each = [f"{k} ({g}/{v})" if g else f"{k} ({v})" for g, v, k, _e in lacking]
        names, cut = first_names(each, 60)
        yield RULE.at(sf, anchor, f"{len(lacking)} owned API{'s have' if len(lacking) > 1 else ' has'} no example in {ALM}: {names}.",
                      detail=(f"Without an example: {', '.join(each)}. " if cut else "")
                      + "The console's Create form for them starts empty (operator-sdk warns too). Add an example object for "
                      "each, or list CRDs users are not meant to create in operators.operatorframework.io/internal-objects.",
                      kind="no-example")
