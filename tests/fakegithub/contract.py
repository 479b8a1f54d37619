"""GitHub's API contract, as vendored in ``schema/`` by ``cut_schema.py``.

- :func:`rest` — the REST operations: route matching, parameter and request-body
  validation (jsonschema, draft 2020-12), and the 2xx response schema of each operation;
- :func:`webhooks` — the webhook payload schemas (``pull_request.opened`` ...);
- :func:`conform` / :func:`skeleton` — fill the required fields a response or payload
  lacks with type-correct placeholders, so bodies the fake builds by hand stay valid
  against GitHub's published schemas (the fake's own tests check that they are).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
API_VERSION = "2022-11-28"

_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")

#: Format checker for requests: only ``date-time`` is asserted (GitHub rejects a
#: ``started_at`` that is not ISO 8601); other formats are annotations here.
REQUEST_FORMATS = jsonschema.FormatChecker(formats=())


@REQUEST_FORMATS.checks("date-time")
def _is_date_time(value) -> bool:
    return not isinstance(value, str) or bool(_DATE_TIME.match(value))


@dataclass
class Operation:
    """One REST operation of the vendored cut."""

    operation_id: str
    method: str
    path: str
    documentation_url: str
    parameters: list
    statuses: list
    request_schema: Optional[dict] = None
    request_required: bool = False
    response_status: Optional[int] = None
    response_schema: Optional[dict] = None
    pattern: re.Pattern = field(default=None, repr=False)

    @property
    def is_write(self) -> bool:
        return self.method in ("POST", "PATCH", "PUT", "DELETE")

    def match(self, path: str) -> Optional[dict]:
        m = self.pattern.fullmatch(path)
        return m.groupdict() if m else None


def _path_pattern(template: str) -> re.Pattern:
    """``/repos/{owner}/{repo}/compare/{basehead}`` -> regex with named groups.

    Every parameter is one path segment, except ``basehead`` (``main...feature/x``) and a
    file's ``path``.
    """
    out = ""
    for part in re.split(r"(\{[a-z_]+\})", template):
        if part.startswith("{"):
            name = part[1:-1]
            out += f"(?P<{name}>.+)" if name in ("basehead", "path") else f"(?P<{name}>[^/]+)"
        else:
            out += re.escape(part)
    return re.compile(out)


class Contract:
    """Vendored REST operations with their validators."""

    def __init__(self, document: dict):
        self.source = document["x-source"]
        self.defs = document["$defs"]
        self.operations = []
        for op in document["operations"]:
            body = op.get("requestBody") or {}
            response = op.get("response") or {}
            self.operations.append(Operation(
                operation_id=op["operationId"],
                method=op["method"],
                path=op["path"],
                documentation_url=op.get("documentation_url") or "https://docs.github.com/rest",
                parameters=op["parameters"],
                statuses=op["statuses"],
                request_schema=body.get("schema"),
                request_required=bool(body.get("required")),
                response_status=response.get("status"),
                response_schema=response.get("schema"),
                pattern=_path_pattern(op["path"]),
            ))
        self.by_id = {op.operation_id: op for op in self.operations}
        self._validators: dict = {}

    def route(self, method: str, path: str):
        """Return ``(operation, path_params)``; ``(None, None)`` when nothing matches.

        When the path matches an operation but not with this method, returns
        ``(None, {"allowed": [...]})`` so the caller can say so.
        """
        allowed = []
        for op in self.operations:
            params = op.match(path)
            if params is None:
                continue
            if op.method == method:
                return op, params
            allowed.append(op.method)
        return None, ({"allowed": allowed} if allowed else None)

    def _validator(self, key: str, schema: dict, formats) -> jsonschema.Draft202012Validator:
        if key not in self._validators:
            root = dict(schema)
            root["$defs"] = self.defs
            self._validators[key] = jsonschema.Draft202012Validator(root, format_checker=formats)
        return self._validators[key]

    def request_errors(self, op: Operation, body: Any) -> list:
        """Messages for every way ``body`` breaks the operation's request schema."""
        if op.request_schema is None:
            return []
        validator = self._validator(f"{op.operation_id} request", op.request_schema,
                                    REQUEST_FORMATS)
        return [_describe(e) for e in sorted(validator.iter_errors(body), key=_error_key)]

    def response_errors(self, op: Operation, body: Any) -> list:
        if op.response_schema is None:
            return []
        validator = self._validator(f"{op.operation_id} response", op.response_schema, None)
        return [_describe(e) for e in sorted(validator.iter_errors(body), key=_error_key)]

    def parameter_errors(self, op: Operation, path_params: dict, query: dict) -> tuple:
        """Check path and query parameters; return ``(errors, coerced_query)``.

        ``errors`` are ``(where, message)`` pairs, ``where`` being "path" or "query".

        Query values arrive as strings: integers and booleans are coerced before being
        checked against the parameter schema (``per_page=abc`` is a violation).
        Unknown query parameters are allowed, as GitHub ignores them.
        """
        errors = []
        coerced = dict(query)
        for prm in op.parameters:
            name, where = prm["name"], prm["in"]
            source = path_params if where == "path" else query if where == "query" else None
            if source is None:
                continue
            if name not in source:
                if prm["required"]:
                    errors.append((where, f"required {where} parameter {name!r} is missing"))
                continue
            value = _coerce(source[name], prm["schema"])
            problems = list(jsonschema.Draft202012Validator(prm["schema"]).iter_errors(value))
            if problems:
                errors.append((where, f"{where} parameter {name}={source[name]!r}: "
                                      f"{problems[0].message}"))
            elif where == "query":
                coerced[name] = value
        return errors, coerced


class WebhookSchemas:
    """Vendored webhook payload schemas, keyed ``pull_request.opened``, ``push`` ..."""

    def __init__(self, document: dict):
        self.source = document["x-source"]
        self.defs = document["$defs"]
        self.events = document["events"]
        self._validators: dict = {}

    def schema(self, name: str) -> dict:
        root = dict(self.events[name])
        root["$defs"] = self.defs
        return root

    def errors(self, name: str, payload: Any) -> list:
        if name not in self._validators:
            self._validators[name] = jsonschema.Draft202012Validator(self.schema(name))
        return [_describe(e) for e in
                sorted(self._validators[name].iter_errors(payload), key=_error_key)]


@lru_cache(maxsize=None)
def rest() -> Contract:
    """``schema/rest.json`` (cut from the shared file) plus ``schema/rest-extra.json``: the
    operations the shared cut lacks, written by hand (see its ``x-source``)."""
    document = json.loads((SCHEMA_DIR / "rest.json").read_text(encoding="utf-8"))
    extra = json.loads((SCHEMA_DIR / "rest-extra.json").read_text(encoding="utf-8"))
    document = dict(document, operations=document["operations"] + extra["operations"])
    return Contract(document)


@lru_cache(maxsize=None)
def webhooks() -> WebhookSchemas:
    return WebhookSchemas(json.loads((SCHEMA_DIR / "webhooks.json").read_text(encoding="utf-8")))


def _error_key(error) -> tuple:
    return (list(map(str, error.absolute_path)), error.message)


def _describe(error) -> str:
    where = "/".join(str(p) for p in error.absolute_path)
    if error.validator in ("anyOf", "oneOf") and error.context:
        detail = "; ".join(sorted({c.message for c in error.context}))
        return f"{where or '(body)'}: {error.message[:200]} ({detail[:400]})"
    return f"{where or '(body)'}: {error.message[:400]}"


def _coerce(value: str, schema: dict):
    types = schema.get("type")
    types = types if isinstance(types, list) else [types]
    if "integer" in types:
        try:
            return int(value)
        except (TypeError, ValueError):
            return value
    if "boolean" in types and value in ("true", "false"):
        return value == "true"
    return value


# --- filling responses and payloads ------------------------------------------------

def _resolve(schema: dict, defs: dict) -> dict:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return schema if isinstance(schema, dict) else {}


def _types(schema: dict) -> list:
    t = schema.get("type")
    if t is None:
        return []
    return t if isinstance(t, list) else [t]


_PLACEHOLDER_STRINGS = {
    "date-time": "2011-04-14T16:00:49Z",
    "uri": "https://github.com",
    "uri-template": "https://github.com",
    "email": "noreply@github.com",
}


def skeleton(schema: dict, defs: dict, _depth: int = 0):
    """A minimal value valid against ``schema``: required fields only, null where allowed."""
    schema = _resolve(schema, defs)
    if _depth > 40:
        return None
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        non_null = [v for v in schema["enum"] if v is not None]
        return non_null[0] if non_null else None
    for key in ("anyOf", "oneOf"):
        if key in schema:
            alternatives = [_resolve(a, defs) for a in schema[key]]
            if any(_types(a) == ["null"] for a in alternatives):
                return None
            return skeleton(alternatives[0], defs, _depth + 1)
    if "allOf" in schema:
        value: Any = None
        for part in schema["allOf"]:
            value = conform(value, part, defs) if value is not None else skeleton(part, defs,
                                                                                     _depth + 1)
        return value
    types = _types(schema)
    if "null" in types:
        return None
    kind = types[0] if types else ("object" if "properties" in schema else None)
    if kind == "object":
        props = schema.get("properties", {})
        return {name: skeleton(props.get(name, {}), defs, _depth + 1)
                for name in schema.get("required", [])}
    if kind == "array":
        return [skeleton(schema.get("items", {}), defs, _depth + 1)
                for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        return _PLACEHOLDER_STRINGS.get(schema.get("format"), "")
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


def _json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def conform(value, schema: dict, defs: dict):
    """Return ``value`` with every missing required field filled from :func:`skeleton`.

    Values already present are kept (and walked into); only absent required keys are
    added. Used on every response the fake sends and every webhook payload it builds.
    """
    schema = _resolve(schema, defs)
    if value is None:
        return None
    for key in ("anyOf", "oneOf"):
        if key in schema:
            kind = _json_type(value)
            for alt in schema[key]:
                alt = _resolve(alt, defs)
                alt_types = _types(alt) or (["object"] if "properties" in alt else [])
                if not alt_types or kind in alt_types or (
                        kind == "integer" and "number" in alt_types):
                    if kind == "object" and alt.get("additionalProperties") is False \
                            and not alt.get("properties") and value:
                        continue  # the "empty object" alternative of GitHub's oneOfs
                    return conform(value, alt, defs)
            return value
    if "allOf" in schema:
        for part in schema["allOf"]:
            value = conform(value, part, defs)
        return value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name, sub in props.items():
            if name in value:
                value[name] = conform(value[name], sub, defs)
        for name in schema.get("required", []):
            if name not in value:
                value[name] = skeleton(props.get(name, {}), defs)
        return value
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [conform(v, schema["items"], defs) for v in value]
    return value
