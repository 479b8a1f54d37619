"""What the CSV annotation rules share: the sources of the refusals several of them name, the
internal-objects annotation, an annotation that must be a JSON array of strings, API group and
version of an apiVersion, and a list of names cut to fit a one-sentence message."""
from __future__ import annotations

import json
from typing import Any, Callable, Optional

from ...finding import Finding
from ...model import SourceFile
from ...nodes import Mapping, Scalar
from .json_values import json_array_items, json_type, load_json
from .sources import pos_in
from .text import clip

# Where the refusals are written (the rules' refused_by).
K8S_ANNOTATIONS = "https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/types.go"
PREFLIGHT_ANNOTATIONS = ("https://github.com/redhat-openshift-ecosystem/openshift-preflight/blob/main/internal/policy/"
                         "operator/required_annotations.go")
API_BUNDLE_LOADER = "https://github.com/operator-framework/api/blob/master/pkg/manifests/bundleloader.go"

INTERNAL = "operators.operatorframework.io/internal-objects"


def not_a_string(shape: str) -> list[tuple[str, str, str]]:
    """(component, what, source) of what refuses an annotation of the console's whose value is
    not a string (the only error of the rules reading them): the API server and
    operator-framework/api's bundle loader. The rule makes each a ``refusal(...)``."""
    return [
        ("api-server", f"annotations are a map of strings: a YAML {shape} written as the value cannot be decoded "
         "into the CSV (the only error of this rule)", K8S_ANNOTATIONS),
        ("catalog-ci", "operator-framework/api's bundle loader decodes the CSV into its typed form and fails on a "
         "non-string annotation value, so operator-sdk bundle validate fails the community catalog's pull request",
         API_BUNDLE_LOADER),
    ]


def group_version(api_version: str) -> tuple[str, str]:
    """(group, version) of an apiVersion ("" for the core group)."""
    if "/" in api_version:
        g, v = api_version.split("/", 1)
        return g, v
    return "", api_version


def first_names(names: list[str], room: int) -> tuple[str, bool]:
    """(the first names that fit in ``room`` characters and "and N more", whether some were left
    out): a list of names in a one-sentence message; the detail lists them all."""
    shown_names: list[str] = []
    for i, n in enumerate(names):
        if shown_names and len(", ".join(shown_names + [n])) > room:
            return f"{', '.join(shown_names)} and {len(names) - i} more", True
        shown_names.append(clip(n, room))
    return ", ".join(shown_names), shown_names != names


def internal_names(ann: Optional[Mapping]) -> set[str]:
    """The CRD names the internal-objects annotation lists (empty when it is not a JSON list)."""
    node = ann.get(INTERNAL) if ann is not None else None
    if isinstance(node, Scalar) and isinstance(node.value, str):
        try:
            v = json.loads(node.value)
        except ValueError:
            return set()
        if isinstance(v, list):
            return {x for x in v if isinstance(x, str)}
    return set()


def json_string_array(sf: SourceFile, node: Any, key: str,
                      at: Callable[..., Finding]) -> tuple[Optional[list[tuple[int, str]]], list[Finding]]:
    """(items [(offset, value)], findings) for an annotation that must be a JSON array of
    strings; ``at`` makes a finding (the rule's ``RULE.at``). A value that is not a string is an
    error (annotations are strings: the CSV cannot be decoded); the rest only makes the console
    ignore the annotation (warnings: the console JSON.parses it and drops a value that is not an
    array of strings)."""
    out: list[Finding] = []
    if not (isinstance(node, Scalar) and isinstance(node.value, str)):
        out.append(at(sf, node, f"{key} is {node.type_name()}, not a string holding a JSON array of strings.",
                      kind="schema", detail="Annotations are strings: the API server refuses the CSV. Write it as "
                      "'[\"a\", \"b\"]' in quotes."))
        return None, out
    doc, err = load_json(sf, node)
    if err is not None:
        out.append(at(sf, None, f"{key} is not valid JSON: {err.reason}.",
                      detail=err.at() + "The console JSON.parses it and ignores the whole annotation. Write a JSON array of strings "
                      "such as '[\"a\", \"b\"]'.", line=err.line, column=err.column))
        return None, out
    if not isinstance(doc, list):
        out.append(at(sf, node, f"{key} holds {json_type(doc)}, not a JSON array of strings.",
                      detail="The console ignores it. Write a JSON array of strings such as '[\"a\", \"b\"]'."))
        return None, out
    items = json_array_items(node.value)
    for off, v in items:
        if not isinstance(v, str):
            ln, col = pos_in(sf, node, off)
            out.append(at(sf, None, f"an entry of {key} is {json_type(v)}, not a string.",
                          detail="Every entry must be a string: the console ignores the whole annotation otherwise.",
                          line=ln, column=col))
    return [(o, v) for o, v in items if isinstance(v, str)], out
