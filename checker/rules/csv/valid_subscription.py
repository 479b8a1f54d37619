"""
What: `operators.openshift.io/valid-subscription` is a string holding a JSON array of
unique, non-empty strings naming the subscriptions that entitle use of the operator,
e.g. '["OpenShift Container Platform", "OpenShift Platform Plus"]'.

Why: the console shows these on the operator's page ("Valid subscriptions") and filters
OperatorHub by them; it JSON.parses the value and silently ignores anything but an array
of strings, so a malformed value shows nothing. Nothing refuses the bundle for that:
a warning. An empty value, an empty list or a bare 'none' is info: the console shows '-',
exactly as without the annotation (openshift/console, operator-hub-utils.ts
`getValidSubscription`); Red Hat certification requires the annotation, so in the
`certified` profile an empty value or list stays a warning. A YAML
list instead of a JSON string cannot be decoded at all (annotations are strings): the
API server refuses the CSV (an error).

Fix: write a JSON array of strings in quotes.

Bad:
    operators.openshift.io/valid-subscription: OpenShift Container Platform
Good:
    operators.openshift.io/valid-subscription: '["OpenShift Container Platform"]'
"""
from __future__ import annotations

import json

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from .. import define, refusal
from ..lib.csv import csv_annotation
from ..lib.csv_annotations import json_string_array, not_a_string
from ..lib.fixes import fix_value
from ..lib.sources import pos_in
from ..lib.text import clip, is_blank, shown

VALID_SUB = "operators.openshift.io/valid-subscription"


RULE = define("valid-subscription", "valid-subscription is not a non-empty JSON array of unique strings", __doc__,
              category="csv", supersedes=("manifest-invalid",), refused_by=[refusal(*x) for x in not_a_string("list")])


@RULE.check
def valid_subscription(bundle: Bundle, ctx: Context):
    csv, node = csv_annotation(bundle, VALID_SUB)
    if node is None:
        return
    sf = csv.file
    # empty or "none": the console shows '-', as without the annotation; only Red Hat's
    # certification documentation asks for a non-empty list (kind "empty": a warning for the
    # certified targets, info elsewhere; verdicts.yaml)
    empty_why = ("The console shows '-' under Valid subscriptions, as without the annotation, and Red Hat's certification "
                 "documentation asks for the subscriptions that entitle use")
    if is_blank(node) and isinstance(node, Scalar):
        yield RULE.at(sf, node, f"{VALID_SUB} is empty.", kind="empty",
                      detail=f"{empty_why}. List the subscriptions, e.g. '[\"OpenShift Container Platform\"]', or remove the annotation.")
        return
    items, problems = json_string_array(sf, node, VALID_SUB, RULE.at)
    if problems and items is None and isinstance(node, Scalar) and isinstance(node.value, str) and not node.value.strip().startswith("["):
        # a bare name: offer the JSON form
        p = problems[0]
        p.line, p.column = node.line, node.col
        if node.value.strip().lower() in ("none", "n/a", "na", "-", "null", "no"):
            p.message = f"{VALID_SUB} is '{shown(node, 40)}', not a JSON array."
            p.detail = ("The console ignores it and shows '-' under Valid subscriptions, as without the annotation, so "
                        "nothing is lost on the console; Red Hat's certification documentation asks for the subscriptions "
                        "that entitle use. An operator that needs no subscription does not set the annotation: remove it.")
            p.kind = "empty"
            yield p
            return
        want = "'" + json.dumps([x.strip() for x in node.value.split(",") if x.strip()]).replace("'", "''") + "'"
        p.message = f"{VALID_SUB} is '{shown(node, 40)}', not a JSON array."
        p.detail = f"The console ignores it, so the operator's page shows no subscription. Write {want}."
        p.fix = fix_value(sf, node, want, "write a JSON array")
        yield p
        return
    yield from problems
    if items is None:
        return
    if not items and not problems:
        yield RULE.at(sf, node, f"{VALID_SUB} is an empty list.", kind="empty",
                      detail=f"{empty_why}. List the subscriptions, e.g. '[\"OpenShift Container Platform\"]', or remove the annotation.")
        return
    seen = set()
    for off, s in items:
        ln, col = pos_in(sf, node, off)
        if not s.strip():
            yield RULE.at(sf, None, f"{VALID_SUB} has an empty entry.", detail="Name a subscription or remove it.",
                          line=ln, column=col)
        elif s in seen:
            yield RULE.at(sf, None, f"'{clip(s, 50)}' is listed twice in {VALID_SUB}.",
                          detail="The items must be unique. Remove the repetition.", line=ln, column=col)
        seen.add(s)
