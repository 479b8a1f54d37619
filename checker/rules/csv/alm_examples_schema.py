"""
What: each example in the CSV's `alm-examples` is validated against the
`openAPIV3Schema` of the bundle's CRD version it names (kind and group/version;
`spec.versions[].schema` in apiextensions.k8s.io/v1, `spec.validation` or the
per-version schema in v1beta1), as the API server validates a created object: types,
required fields (a field with a default counts as present: defaults are applied first),
enum, pattern, the formats Kubernetes checks (date, date-time, ipv4, ipv6, cidr, byte,
email, uri, duration, uuid; others are ignored, as the API server ignores them), minimum
and maximum (exclusive too), length and item bounds, `x-kubernetes-int-or-string`,
`nullable`, `x-kubernetes-preserve-unknown-fields` and `x-kubernetes-embedded-resource`.
`metadata` (name, namespace, labels: ObjectMeta) and a `status` the status subresource
resets are not checked against the schema. An example of a version the CRD does not serve
is reported too (the API server has no such resource). CEL rules (`x-kubernetes-validations`) are not evaluated. At most 10
findings per example and 40 per bundle are reported, and an example whose schema
reaches more than 60,000 schema nodes or 80 levels is not checked. Patterns are
evaluated with RE2 (google-re2), as the API server evaluates them with Go's regexp: in
linear time, so no pattern and value can stall the check; a pattern RE2 refuses
(lookarounds, backreferences) is not checked (the API server refuses such a CRD). The
validation of one bundle's examples has a time budget of 3 s: past it, an info finding
says how many examples were not checked.

Why: the console offers every example as the starting object of "Create instance": an
example the API server refuses (its validation of the CRD's schema: apiextensions-apiserver
pkg/apiserver/validation) is the first thing a new user of the operator meets, as an
error. It is a warning, not an error: nothing refuses or breaks the bundle (OLM installs
it, opm and the catalog's CI accept it) and the user edits the example before creating it;
many operators ship deliberate skeletons (`"spec": {}`) for the user to fill in. Measured
on community-operators-prod: as an error it would fail 747 of the 1,762 bundles the
catalog accepted in its last 12 months, 696 of them for required fields an empty skeleton
leaves out. Raise it in the configuration (`rules: {alm-examples-schema: error}`) where
examples must create as shipped. A field the schema does not declare (where it does not
preserve unknown fields) is not refused but silently pruned by the API server: the setting
the example shows has no effect (info).

Fix: make the example match the CRD's schema at the position shown (the JSON path is in
the message): the right type, an allowed value, the missing required field; remove or
rename a dropped field, or declare it in the CRD.

Bad:
    alm-examples: |-
      [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"size": "3"}}]
Good:
    alm-examples: |-
      [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"size": 3}}]
"""
from __future__ import annotations

import time

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define
from ..lib.crd_schema import (
    MAX_PER_BUNDLE,
    MAX_PER_EXAMPLE,
    TIME_BUDGET,
    _allowed,
    _dotted,
    _Fallback,
    _locate,
    _prepared,
    _problem,
    _Target,
    _targets,
)
from ..lib.csv import examples_annotation, the_csv
from ..lib.json_values import json_array_items, load_json
from ..lib.sources import pos_in, scalar_positions
from ..lib.text import is_blank

RULE = define("alm-examples-schema", "An alm-examples entry does not validate against its CRD version's openAPIV3Schema", __doc__,
              category="csv")


@RULE.check
def alm_examples_schema(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    _key, node = examples_annotation(csv.annotations())
    if is_blank(node) or not (isinstance(node, Scalar) and isinstance(node.value, str)):
        return
    if not bundle.crds:
        return
    doc, err = load_json(csv.file, node)
    if err is not None or not isinstance(doc, list):
        return  # the alm-examples rule reports it
    targets = None
    sf = csv.file
    text = node.value
    positions: list = []

    def at(off: int) -> tuple:
        if not positions:
            positions.append(scalar_positions(sf, node) or [])
        return pos_in(sf, node, off, positions[0])

    budget = [MAX_PER_BUNDLE]
    items = json_array_items(text)
    deadline = time.monotonic() + TIME_BUDGET
    for n, (off, item) in enumerate(items):
        if budget[0] <= 0:
            return
        if time.monotonic() > deadline:
            yield _out_of_time(sf, node, len(items) - n, len(items))
            return
        if not isinstance(item, dict):
            continue
        av, kind = item.get("apiVersion"), item.get("kind")
        if not isinstance(av, str) or not isinstance(kind, str):
            continue
        g, v = av.split("/", 1) if "/" in av else ("", av)
        if targets is None:
            targets = _targets(bundle)
        t = targets.get((g, v, kind))
        if t is None:
            continue  # not a CRD of this bundle (alm-examples reports unowned APIs)
        md = item.get("metadata")
        name = md.get("name") if isinstance(md, dict) else None
        label = f"{kind} example" + (f" '{name}'" if isinstance(name, str) and name else "")
        if not t.served:
            ln, col = at(_locate(text, off, ["apiVersion"]) or off)
            budget[0] -= 1
            yield RULE.at(sf, None, f"{label} is written for {av}, a version the CRD {t.crd_name} does not serve",
                          detail="The version has served: false: the API server has no such resource, so creating the "
                          "example fails. Use a served version's apiVersion (and its schema).", line=ln, column=col)
            continue
        for f in _check_example(sf, text, off, item, t, label, at, budget, deadline):
            if f is None:  # out of time inside the example
                yield _out_of_time(sf, node, len(items) - n, len(items))
                return
            yield f


def _out_of_time(sf, node, left: int, total: int):
    return RULE.at(sf, node, f"alm-examples schema validation stopped after {TIME_BUDGET:g} s: "
                   f"{left} of {total} examples not checked",
                   detail="olm-check gives the schema validation of one bundle's examples a time budget, so that no "
                   "bundle (a huge CRD schema, a hostile example) can stall a check; the examples after it are "
                   "not checked. Nothing is wrong with the bundle for that; the API server validates each example "
                   "only when it is created. Check the examples by creating them on a cluster, or make the CRD's "
                   "schema smaller.", kind="out-of-time")


def _check_example(sf, text: str, off: int, item: dict, t: _Target, label: str, at, budget: list, deadline: float):
    """The example's findings; None (and nothing after it) when the bundle's time budget ran out."""
    try:
        got = _prepared(t, item)
    except _Fallback:
        t.read_by_pyyaml()
        got = _prepared(t, item)
    if got is None:
        return
    if time.monotonic() > deadline:
        yield None
        return
    data, val = got
    where = f"the schema of {t.crd_name}, version {t.version}"
    errors = []
    try:
        for e in val.iter_errors(data):
            errors.append(e)
            if time.monotonic() > deadline:
                yield None
                return
        errors.sort(key=lambda e: [str(p) for p in e.absolute_path])
    except (RecursionError, ValueError, TypeError, OverflowError, MemoryError):
        return
    except Exception:  # pragma: no cover - jsonschema internals on odd schemas: never a traceback
        return
    count = 0
    for e in errors:
        if count >= MAX_PER_EXAMPLE or budget[0] <= 0:
            return
        path = list(e.absolute_path)
        if e.validator == "additionalProperties" and isinstance(e.schema, dict) and e.schema.get("x-pruned"):
            known = e.schema.get("properties") or {}
            extra = [k for k in e.instance if k not in known] if isinstance(e.instance, dict) else []
            if not extra:
                continue
            o = _locate(text, off, path + [extra[0]], key=True)
            ln, col = at(o if o is not None else off)
            names = ", ".join(_dotted(path + [k]) for k in extra[:8]) + (", ..." if len(extra) > 8 else "")
            one = len(extra) == 1
            count += 1
            budget[0] -= 1
            yield RULE.at(sf, None, f"{names} {'is' if one else 'are'} not in the schema",
                          detail=f"In the {label}, checked against {where}: the API server drops "
                          f"{'this field' if one else 'these fields'} when the example is created, and the setting has "
                          "no effect. Fix the spelling or the nesting, remove it, or declare it in the CRD.",
                          kind="pruned", line=ln, column=col)
            continue
        what = _problem(e)
        if what is None:
            continue
        o = _locate(text, off, path)
        ln, col = at(o if o is not None else off)
        count += 1
        budget[0] -= 1
        yield RULE.at(sf, None, what, line=ln, column=col,
                      detail=f"In the {label}, checked against {where}. {_allowed(e)}The API server refuses to create "
                      "the example, so the console's Create form built from it fails. Correct the value in alm-examples.")
