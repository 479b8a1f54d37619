#!/usr/bin/env python3
"""Cut the small slice of GitHub's API description that the fake server needs.

Reads the two files in ``../shared/github-api/`` (beside the repository):

- ``rest-subset.json`` — dereferenced operations from ``@octokit/openapi`` 23.0.2
  (``generated/api.github.com.deref.json``, MIT licensed);
- ``webhook-event-schemas.json`` — event payload schemas from
  ``@octokit/openapi-webhooks`` 12.1.0 (MIT licensed);

and writes, next to this script:

- ``schema/rest.json`` — for each operation olm-check uses: method, path, parameters,
  the JSON request body schema, the documented status codes and the 2xx response schema;
- ``schema/webhooks.json`` — the payload schemas of ``pull_request`` (opened,
  synchronize, reopened) and ``push``.

The cut turns OpenAPI 3.0 schemas into plain JSON Schema (``nullable: true`` becomes a
``"null"`` type), drops prose (descriptions, examples, titles, vendor ``x-`` keys) and
moves large sub-schemas that occur more than once (users, repositories, ...) into
``$defs``, so the committed files stay small (a few hundred KB) and readable. The output
is deterministic: running the script twice gives identical files.

Run from anywhere::

    python3 tests/fakegithub/cut_schema.py [--source DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
DEFAULT_SOURCE = REPO_ROOT.parent / "shared" / "github-api"
OUT_DIR = HERE / "schema"

#: (method, path) of every REST operation the fake serves, in a stable order.
OPERATIONS = [
    ("get", "/rate_limit"),
    ("get", "/repos/{owner}/{repo}"),
    ("post", "/repos/{owner}/{repo}/check-runs"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("get", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("delete", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/comments"),
    ("post", "/repos/{owner}/{repo}/pulls/{pull_number}/comments"),
    ("get", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"),
    ("patch", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"),
    ("delete", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
    ("post", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
]

#: webhook schema name in the source -> event name used by the fake (event.action).
EVENTS = {
    "pull-request-opened": "pull_request.opened",
    "pull-request-synchronize": "pull_request.synchronize",
    "pull-request-reopened": "pull_request.reopened",
    "push": "push",
}

#: Annotation keywords dropped from every schema (they do not constrain anything).
DROP_KEYWORDS = {
    "description", "example", "examples", "externalDocs", "deprecated", "readOnly",
    "writeOnly", "xml", "discriminator", "default", "$comment",
}

#: Keywords whose value is a schema, a list of schemas or a map of schemas.
SCHEMA_VALUED = {"items", "not", "additionalProperties", "contains", "propertyNames"}
SCHEMA_LISTS = {"anyOf", "oneOf", "allOf", "prefixItems"}
SCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions"}

#: Sub-schemas at least this long (canonical JSON) that occur twice or more go to $defs.
DEDUP_MIN_CHARS = 300


def normalize(schema, openapi30: bool):
    """Return a plain JSON Schema copy of ``schema`` without prose.

    With ``openapi30`` the OpenAPI 3.0 ``nullable`` keyword is rewritten: a typed schema
    gets ``"null"`` added to its type (and to its enum), an untyped one is wrapped in
    ``anyOf: [schema, {"type": "null"}]``. ``title`` is kept for now: it names ``$defs``.
    """
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in DROP_KEYWORDS or key.startswith("x-") or key == "nullable":
            continue
        if key in SCHEMA_VALUED and isinstance(value, dict):
            out[key] = normalize(value, openapi30)
        elif key in SCHEMA_LISTS:
            out[key] = [normalize(v, openapi30) for v in value]
        elif key in SCHEMA_MAPS:
            out[key] = {name: normalize(v, openapi30) for name, v in value.items()}
        else:
            out[key] = value
    if openapi30 and schema.get("nullable") is True:
        if "type" in out:
            types = out["type"] if isinstance(out["type"], list) else [out["type"]]
            if "null" not in types:
                out["type"] = types + ["null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = out["enum"] + [None]
        else:
            title = out.pop("title", None)
            out = {"anyOf": [out, {"type": "null"}]}
            if title:
                out["title"] = title
    return out


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def subschemas(schema, name: str = ""):
    """Yield ``(name, sub)`` for every sub-schema of ``schema`` (not itself), outermost first.

    ``name`` is the nearest property name above the sub-schema (``items`` of ``files``
    is named ``files-item``), used to name shared schemas that have no title.
    """
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        children = []
        if key in SCHEMA_VALUED and isinstance(value, dict):
            children = [(f"{name}-item" if key == "items" else name, value)]
        elif key in SCHEMA_LISTS:
            children = [(name, v) for v in value]
        elif key in SCHEMA_MAPS and key not in ("$defs", "definitions"):
            children = list(value.items())
        for child_name, child in children:
            if isinstance(child, dict):
                yield child_name, child
                yield from subschemas(child, child_name)


def replace(schema, target: str, ref: dict):
    """Copy of ``schema`` with every sub-schema whose canonical form is ``target`` -> ref."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in SCHEMA_VALUED and isinstance(value, dict):
            out[key] = ref if canonical(value) == target else replace(value, target, ref)
        elif key in SCHEMA_LISTS:
            out[key] = [ref if canonical(v) == target else replace(v, target, ref) for v in value]
        elif key in SCHEMA_MAPS and key not in ("$defs", "definitions"):
            out[key] = {
                k: (ref if canonical(v) == target else replace(v, target, ref))
                for k, v in value.items()
            }
        else:
            out[key] = value
    return out


def strip_titles(schema):
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in SCHEMA_VALUED and isinstance(value, dict):
            out[key] = strip_titles(value)
        elif key in SCHEMA_LISTS:
            out[key] = [strip_titles(v) for v in value]
        elif key in SCHEMA_MAPS:
            out[key] = {k: strip_titles(v) for k, v in value.items()}
        else:
            out[key] = value
    return out


def def_name(schema: dict, taken: set, text: str, where: str) -> str:
    title = schema.get("title") or where or "schema"
    base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "schema"
    name = base
    if name in taken:
        name = f"{base}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"
    taken.add(name)
    return name


def deduplicate(roots: dict) -> tuple[dict, dict]:
    """Move repeated large sub-schemas of ``roots`` (name -> schema) into ``$defs``.

    Repeats until no sub-schema of at least DEDUP_MIN_CHARS occurs twice, taking the
    largest first so that a whole repeated object becomes one reference. Returns
    ``(roots, defs)`` with titles stripped; references are ``{"$ref": "#/$defs/NAME"}``.
    """
    defs: dict = {}
    taken: set = set()
    while True:
        counts: Counter = Counter()
        names: dict = {}
        for schema in list(roots.values()) + list(defs.values()):
            for where, sub in subschemas(schema):
                text = canonical(sub)
                if len(text) >= DEDUP_MIN_CHARS:
                    counts[text] += 1
                    names.setdefault(text, where)
        repeated = [text for text, n in counts.items() if n >= 2]
        if not repeated:
            break
        target = max(repeated, key=lambda t: (len(t), t))
        schema = json.loads(target)
        name = def_name(schema, taken, target, names[target])
        ref = {"$ref": f"#/$defs/{name}"}
        roots = {k: replace(v, target, ref) for k, v in roots.items()}
        defs = {k: replace(v, target, ref) for k, v in defs.items()}
        defs[name] = schema
    roots = {k: strip_titles(v) for k, v in roots.items()}
    defs = {k: strip_titles(v) for k, v in sorted(defs.items())}
    return roots, defs


def cut_rest(source: dict) -> dict:
    operations = []
    roots = {}
    for method, path in OPERATIONS:
        op = source["paths"][path][method]
        oid = op["operationId"]
        params = []
        for prm in op.get("parameters", []):
            params.append({
                "name": prm["name"],
                "in": prm["in"],
                "required": bool(prm.get("required", False)),
                "schema": normalize(prm.get("schema", {}), True),
            })
        entry = {
            "operationId": oid,
            "method": method.upper(),
            "path": path,
            "documentation_url": op.get("externalDocs", {}).get("url"),
            "parameters": params,
            "statuses": sorted(op.get("responses", {})),
        }
        body = op.get("requestBody")
        if body:
            entry["requestBody"] = {"required": bool(body.get("required", False))}
            roots[f"{oid} request"] = normalize(
                body["content"]["application/json"]["schema"], True)
        ok = [s for s in sorted(op.get("responses", {})) if s.startswith("2")]
        if ok:
            entry["response"] = {"status": int(ok[0])}
            content = op["responses"][ok[0]].get("content", {})
            if "application/json" in content:
                roots[f"{oid} response"] = normalize(
                    content["application/json"]["schema"], True)
        operations.append(entry)
    roots, defs = deduplicate(roots)
    for entry in operations:
        oid = entry["operationId"]
        if "requestBody" in entry:
            entry["requestBody"]["schema"] = roots[f"{oid} request"]
        if f"{oid} response" in roots:
            entry["response"]["schema"] = roots[f"{oid} response"]
    return {
        "x-source": {
            "package": "@octokit/openapi",
            "version": source["info"]["version"],
            "file": "generated/api.github.com.deref.json",
            "license": "MIT",
            "via": "../shared/github-api/rest-subset.json",
            "cut-by": "tests/fakegithub/cut_schema.py",
        },
        "operations": operations,
        "$defs": defs,
    }


def cut_webhooks(source: dict) -> dict:
    extracted = source.get("x-extracted-from", "@octokit/openapi-webhooks")
    package, _, rest = extracted.partition(" ")
    version = rest.split(" ")[0] if rest else ""
    roots = {EVENTS[name]: normalize(source["events"][name], False) for name in EVENTS}
    roots, defs = deduplicate(roots)
    return {
        "x-source": {
            "package": package,
            "version": version,
            "file": "generated/api.github.com.json",
            "license": "MIT",
            "via": "../shared/github-api/webhook-event-schemas.json",
            "cut-by": "tests/fakegithub/cut_schema.py",
        },
        "events": roots,
        "$defs": defs,
    }


def write(path: Path, document: dict) -> int:
    text = json.dumps(document, indent=1, sort_keys=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                        help="folder holding rest-subset.json and webhook-event-schemas.json")
    parser.add_argument("--out", type=Path, default=OUT_DIR,
                        help="where to write rest.json and webhooks.json (default: schema/)")
    args = parser.parse_args(argv)
    rest_src = args.source / "rest-subset.json"
    hooks_src = args.source / "webhook-event-schemas.json"
    for src in (rest_src, hooks_src):
        if not src.is_file():
            print(f"cut_schema: {src} not found", file=sys.stderr)
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rest = cut_rest(json.loads(rest_src.read_text(encoding="utf-8")))
    hooks = cut_webhooks(json.loads(hooks_src.read_text(encoding="utf-8")))
    n_rest = write(args.out / "rest.json", rest)
    n_hooks = write(args.out / "webhooks.json", hooks)
    print(f"schema/rest.json: {len(rest['operations'])} operations, "
          f"{len(rest['$defs'])} shared schemas, {n_rest} bytes")
    print(f"schema/webhooks.json: {len(hooks['events'])} events, "
          f"{len(hooks['$defs'])} shared schemas, {n_hooks} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
