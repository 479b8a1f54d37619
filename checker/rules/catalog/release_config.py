"""
What: a bundle's `release-config.yaml` (beside `manifests/`, for operators whose catalogs
are file-based) must follow the pipeline's JSON schema (`catalog_templates`: a non-empty
list of `{template_name, channels, defaultChannel?, replaces?, skips?, skipRange?}`,
`merge`: a boolean, nothing else), and agree with the operator's ci.yaml: `fbc.enabled:
true`, every `template_name` listed in `fbc.catalog_mapping`, and a template of type
`olm.semver` given only the channels `Fast`, `Candidate` and `Stable`.

Why: the community, certified and marketplace pipelines run
check_validate_schema_bundle_release_config and check_bundle_release_config (common
suite) on every bundle that has the file, and fail the pull request on any of these.

Fix: correct the file at the position shown, or the operator's ci.yaml (enable FBC, map the
template).

Bad:
    catalog_templates:
      - template_name: basic.yaml
        channel: [stable]
Good:
    catalog_templates:
      - template_name: basic.yaml
        channels: [stable]
"""
from __future__ import annotations

from functools import lru_cache

from ...catalogs import ci_data
from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence, to_py
from .. import define, refusal
from ..lib.json_values import json_type
from ..lib.tables import table

# operator-pipelines@422dfd6e operatorcert/static_tests/common/bundle.py: check_bundle_release_config,
# _check_semver_allowed_channels, check_validate_schema_bundle_release_config; the schema:
# operatorcert/schemas/release-config-schema.json (our copy: checker/data/release-config-schema.yaml)
COMMON_BUNDLE = ("https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/"
                 "static_tests/common/bundle.py")
SEMVER_CHANNELS = ("Fast", "Candidate", "Stable")  # _check_semver_allowed_channels

RULE = define("release-config", "A bundle's release-config.yaml breaks its schema or disagrees with the operator's ci.yaml",
              __doc__, category="catalog", refused_by=[
                  refusal("catalog-ci", "every Red Hat catalog's pipeline checks check_validate_schema_bundle_release_config (the "
                          "JSON schema) and check_bundle_release_config (fbc.enabled, the ci.yaml catalog_mapping, the semver "
                          "template's channels) fail the pull request", COMMON_BUNDLE),
              ])


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator

    return Draft202012Validator(table("release-config-schema.yaml"))


def _where(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "the document"


def _node_at(root, path):
    n = root
    for p in path:
        if isinstance(n, Mapping) and isinstance(p, str):
            nxt = n.get(p)
        elif isinstance(n, Sequence) and isinstance(p, int) and p < len(n):
            nxt = n[p]
        else:
            return n
        if nxt is None:
            return n
        n = nxt
    return n


def _short(v) -> str:
    t = repr(v)
    return t if len(t) <= 40 else type(v).__name__


def _schema_message(e, root):
    """(message, node) for one jsonschema error, in our words, with its values."""
    where = _where(e.absolute_path)
    node = _node_at(root, e.absolute_path)
    v = e.validator
    if v == "required":
        missing = e.validator_value
        have = e.instance if isinstance(e.instance, dict) else {}
        key = next((k for k in missing if k not in have), missing[0] if missing else "?")
        return f"{where} has no '{key}', which the schema requires", node
    if v == "additionalProperties":
        allowed = set((e.schema or {}).get("properties") or ())
        extra = [k for k in (e.instance or {}) if k not in allowed] if isinstance(e.instance, dict) else []
        key = extra[0] if extra else "?"
        if isinstance(node, Mapping):
            kn = node.key_node(key)
            node = kn if kn is not None else node
        return f"{where} has the key '{key}', which the schema does not allow", node
    if v == "type":
        want = {"boolean": "a boolean", "array": "a list", "object": "a mapping", "string": "a string"}.get(
            str(e.validator_value), str(e.validator_value))
        return f"{where} is {_kind(e.instance)}, not {want}", node
    if v == "minItems":
        return f"{where} is empty; the schema requires at least {e.validator_value} item", node
    if v == "uniqueItems":
        return f"{where} repeats an item; the schema requires unique items", node
    msg = " ".join(str(e.message).split())
    if len(msg) > 100:
        msg = f"fails the schema's {v} constraint"
    return f"{where}: {msg}", node


def _kind(v) -> str:
    """A YAML value's type as a message names it (``lib.json_values.json_type`` in YAML's words)."""
    if v is None:
        return "empty"
    t = json_type(v)
    return {"an array": "a list", "an object": "a mapping"}.get(t, t)


@RULE.check
def release_config(bundle: Bundle, ctx: Context):
    sf = bundle.release_config
    if sf is None or not sf.readable or not sf.documents:
        return  # yaml-syntax / yaml-limits say why it cannot be read
    root = sf.documents[0]
    data = to_py(root)
    if not data:
        return  # the pipeline skips an empty release config ("assumed to be ok")
    # a released bundle (one its operator's file-based catalogs list) had its release config read
    # once, by its own pull request; the pipeline never checks it again (a later ci.yaml may map
    # other templates): what is found there is info
    listed = list(getattr(bundle.versions, "catalog_ocp", None) or ())
    released = bool(listed)
    out = []
    for f in _problems(sf, root, data, ctx):
        if released:
            f.kind = "released"
            f.detail += (f" This bundle is released (the {', '.join(map(str, listed))} catalogs list it): its release config "
                         "was read when its pull request merged, and the pipeline checks it only in that pull request "
                         "(the ci.yaml may have changed since).")
        out.append(f)
    yield from out


def _problems(sf, root, data, ctx):
    errors = sorted(_validator().iter_errors(data), key=str)
    for e in errors:
        msg, node = _schema_message(e, root)
        yield RULE.at(sf, node, f"release-config.yaml: {msg}",
                      detail="check_validate_schema_bundle_release_config fails the pull request on a release config "
                      "that does not follow the pipeline's schema (operatorcert/schemas/release-config-schema.json). "
                      "Correct it: catalog_templates is a list of {template_name, channels, defaultChannel, replaces, "
                      "skips, skipRange}; merge a boolean.")
    op = ctx.operator.operator if ctx.operator is not None else None
    ci = ci_data(op)
    fbc = ci.get("fbc") if ci is not None else None
    enabled = fbc.get("enabled") if isinstance(fbc, Mapping) else None
    if not (isinstance(enabled, Scalar) and enabled.value):  # the pipeline: a truthy fbc.enabled
        yield RULE.at(sf, root, "release-config.yaml is here but the operator's ci.yaml does not enable FBC",
                      kind="fbc-disabled",
                      detail="check_bundle_release_config fails the pull request: a release config is only read for "
                      "file-based-catalog operators. Set fbc.enabled: true in the operator's ci.yaml (with its "
                      "catalog_mapping), or remove release-config.yaml.")
        return
    if errors:
        return  # the pipeline's check would stop on a malformed template; the schema findings say why
    mapping = fbc.get("catalog_mapping") if isinstance(fbc, Mapping) else None
    mapped = {}
    for m in (mapping if isinstance(mapping, Sequence) else ()):
        name = m.get("template_name") if isinstance(m, Mapping) else None
        if isinstance(name, Scalar) and isinstance(name.value, str):
            mapped[name.value] = m
    for t in root.get("catalog_templates"):
        name = t.get("template_name")
        if name.value not in mapped:
            listed = ", ".join(sorted(mapped)) or "none"
            yield RULE.at(sf, name, f"template '{name.value}' is not in the ci.yaml catalog_mapping",
                          kind="template-unmapped",
                          detail=f"check_bundle_release_config fails the pull request. The ci.yaml maps: {listed}. Add "
                          "the template to fbc.catalog_mapping in ci.yaml, or name a mapped one.")
            continue
        typ = mapped[name.value].get("type")
        if isinstance(typ, Scalar) and typ.value == "olm.semver":
            chans = t.get("channels")
            bad = [c.value for c in chans if c.value not in SEMVER_CHANNELS]
            if bad:
                yield RULE.at(sf, chans, f"semver template '{name.value}' names channels other than "
                              f"Fast, Candidate, Stable: {', '.join(map(str, bad))}", kind="semver-channels",
                              detail="check_bundle_release_config fails the pull request: opm's semver template "
                              "only has the channels Fast, Candidate and Stable. Use those (or a basic template).")
