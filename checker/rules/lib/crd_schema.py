"""The machinery of alm-examples-schema: alm-examples checked against the openAPIV3Schema of the owned CRD version they name.

The CRD's structural schema (OpenAPI v3 with the x-kubernetes-* extensions) is translated
into a JSON Schema (draft 2020-12) that the jsonschema library validates, following what
the API server does with a created object (apiextensions-apiserver): non-nullable nulls
without a default are removed, unknown fields are pruned (additionalProperties: false where
the schema does not preserve them, reported as warnings), defaulted fields count as present,
and values are validated (types, required, enum, pattern, the formats Kubernetes checks,
bounds, int-or-string, nullable, embedded resources). CEL rules are not evaluated.

Sources: kubernetes/apiextensions-apiserver pkg/apiserver/validation (validation.go,
formats.go), pkg/apiserver/schema/pruning/algorithm.go, pkg/apiserver/schema/defaulting
(prunenulls.go); kubernetes/kube-openapi pkg/validation/strfmt (the format checks).
"""
from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import ipaddress
import json
import re
from collections import OrderedDict
from functools import lru_cache
from json.decoder import scanstring  # type: ignore[attr-defined]  # in json.decoder at runtime; typeshed omits it
from typing import Any, Iterator, Optional

import yaml

from ...fastyaml import starts_scalar
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence, Skipped, to_py
from ...upstream.go_parsers import go_mail_address_error, go_request_uri_error
from ...yamlload import _CONSTRUCTOR, _RESOLVERS, resolve_plain

MAX_SCHEMA_NODES = 60_000  # schema nodes translated for one example (beyond: the example is not checked)
MAX_DEPTH = 80
MAX_PER_EXAMPLE = 10  # findings per example
MAX_PER_BUNDLE = 40
TIME_BUDGET = 3.0  # seconds of schema validation per bundle; past it, an info finding instead of running on

_TYPES = {"object", "array", "string", "integer", "number", "boolean"}
_BOUNDS = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "multipleOf")
_BOUNDS_SET = frozenset(_BOUNDS)  # exclusiveMinimum/exclusiveMaximum only act with a bound
_LOGIC_SET = frozenset(("allOf", "anyOf", "oneOf", "not"))


class _TooBig(Exception):
    pass


# ---------------------------------------------------------------------------------------
# The formats the API server validates (kube-openapi strfmt.Default, restricted to those
# apiextensions-apiserver keeps in CRD schemas); the ones not listed here are not checked.

_UUID = {
    "uuid": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
    "uuid3": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"),
    "uuid4": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
    "uuid5": re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"),
}
_DATE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})$")
_TIME = re.compile(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")
_V4 = re.compile(r"^[0-9]{1,3}(\.[0-9]{1,3}){3}$")
_GO_DURATION = re.compile(r"^[-+]?(?:0|(?:[0-9]*\.?[0-9]+(?:ns|us|µs|μs|ms|s|m|h))+)$")
_LOOSE_DURATION = re.compile(r"(\d+)\s*([A-Za-zµ]+)")
_UNITS = (("ns", "nano"), ("us", "µs", "micro"), ("ms", "milli"), ("s", "sec"), ("m", "min"), ("h", "hr", "hour"),
          ("d", "day"), ("w", "wk", "week"))


def _is_date(s: str) -> bool:  # Go time.Parse("2006-01-02", s)
    m = _DATE.match(s)
    if not m:
        return False
    try:
        datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


def _is_datetime(s: str) -> bool:  # strfmt.IsDateTime
    if len(s) < 4:
        return False
    parts = s.lower().split("t")
    if len(parts) < 2 or not _is_date(parts[0]):
        return False
    m = _TIME.match(parts[1])
    return m is not None and m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _ipv4_sloppy(s: str) -> bool:  # netutils.ParseIPSloppy on a dotted quad (leading zeros allowed)
    return bool(_V4.match(s)) and all(int(p) <= 255 for p in s.split("."))


def _ip(s: str) -> bool:  # net.ParseIP (sloppy): a dotted quad, or an IPv6 address (no zone)
    if _ipv4_sloppy(s):
        return True
    if "%" in s or ":" not in s:
        return False
    try:
        ipaddress.IPv6Address(s)
    except ValueError:
        return False
    return True


def _is_cidr(s: str) -> bool:
    if "/" not in s:
        return False
    addr, _, bits = s.partition("/")
    if not bits.isdigit() or len(bits) > 3:
        return False
    if _ipv4_sloppy(addr):
        return int(bits) <= 32
    return ":" in addr and _ip(addr) and int(bits) <= 128


def _is_base64(s: str) -> bool:  # govalidator.IsBase64
    if not _BASE64.match(s):
        return False
    try:
        base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _is_duration(s: str) -> bool:  # strfmt.ParseDuration: Go's time.ParseDuration, or "<n> <unit>" words
    if _GO_DURATION.match(s):
        return True
    for _n, unit in _LOOSE_DURATION.findall(s):
        u = unit.strip().lower()
        for variants in _UNITS:
            if any(u == v.lower() for v in variants) or u.startswith(variants[-1]):
                return True
    return False


_CHECKS = {
    "date": _is_date,
    "datetime": _is_datetime,
    "ipv4": lambda s: _ip(s) and "." in s,
    "ipv6": lambda s: _ip(s) and ":" in s,
    "cidr": _is_cidr,
    "byte": _is_base64,
    "email": lambda s: go_mail_address_error(s) is None,
    "uri": lambda s: go_request_uri_error(s) is None,
    "duration": _is_duration,
    **{k: (lambda rx: lambda s: bool(rx.match(s)))(rx) for k, rx in _UUID.items()},
}


# ---------------------------------------------------------------------------------------
# Patterns: RE2, as the API server (Go's regexp, RE2 syntax, linear time) evaluates them.
# Python's re backtracks: '^(a+)+$' against 28 'a's and a '!' took 14.5 s, doubling with each
# character. google-re2 is RE2 itself; what it refuses (lookarounds, backreferences, \Z,
# repetitions over 1000) Go's regexp.Compile refuses too, and the API server then refuses the
# CRD ("must be a valid regular expression", apiextensions-apiserver validation).

try:  # pragma: no branch
    import re2 as _re2

    _RE2_OPTIONS = _re2.Options()
    _RE2_OPTIONS.log_errors = False  # (a refused pattern is an answer, not a message on stderr)
    _RE2_OPTIONS.never_capture = True  # (only whether it matches is asked)
except ImportError:  # pragma: no cover - google-re2 is a dependency; without it no pattern is evaluated
    _re2 = None


@lru_cache(maxsize=4096)
def go_pattern(pat: str) -> Any:
    """The compiled RE2 regular expression of a CRD ``pattern``, or None when RE2 (and so Go's
    regexp and the API server) refuses it, or google-re2 is not installed."""
    if _re2 is None:
        return None
    try:
        return _re2.compile(pat, _RE2_OPTIONS)
    except Exception:  # re2.error, and odd input (surrogates, NUL) the binding refuses
        return None


def _matches(rx: Any, text: str) -> bool:
    """Whether RE2 finds the pattern in ``text``: the binding's C++ Match on the UTF-8 bytes
    (1.5 µs a call), not ``search``, whose Python layer maps byte offsets back to characters
    for a match object (9 µs, six times Python's re); ``search`` when that is not there."""
    m = getattr(getattr(rx, "_regexp", None), "Match", None)
    if m is None or not hasattr(_re2, "_Anchor"):  # pragma: no cover - another binding version
        return rx.search(text) is not None
    b = text.encode("utf-8")
    found: bool = m(_re2._Anchor.UNANCHORED, b, 0, len(b))[0] != _re2._NULL_SPAN
    return found


def _pattern(validator: Any, patrn: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's ``pattern`` keyword, evaluated by RE2 (an unanchored search, as Go's
    MatchString and JSON Schema both do)."""
    if not validator.is_type(instance, "string"):
        return
    rx = go_pattern(patrn)
    if rx is None:
        return
    try:
        ok = _matches(rx, instance)
    except Exception:  # (a string the binding cannot encode, lone surrogates: not checked)
        return
    if not ok:
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{instance!r} does not match {patrn!r}")


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": _pattern})


@lru_cache(maxsize=1)
def _format_checker() -> Any:
    from jsonschema import FormatChecker

    fc = FormatChecker(formats=())
    for name, fn in _CHECKS.items():
        def check(instance: Any, fn: Any = fn) -> Any:
            # an empty string is left alone (not every Go validator of the list refuses it)
            return not isinstance(instance, str) or instance == "" or fn(instance)
        fc.checks(name)(check)
    return fc


# ---------------------------------------------------------------------------------------
# Structural schema -> JSON Schema


_ANY = object()  # no data known: translate everything


def _translate(s: Any, budget: list[int], depth: int = 0, logic: bool = False, root: bool = False, prune: bool = True,
               d: Any = _ANY) -> dict[str, Any]:
    """JSON Schema (draft 2020-12) for one structural-schema node, as far as the data ``d``
    it will validate reaches: the schemas of fields the data does not have are left empty
    (a CRD schema has thousands of nodes, an example a few dozen). ``logic``: inside
    allOf/anyOf/oneOf/not, where a structural schema only validates values (no pruning, no
    types of its own). ``prune``: unknown fields are pruned (structural schemas; not with
    spec.preserveUnknownFields). Unknown keywords ($ref, x-kubernetes-validations, ...) are dropped."""
    if not isinstance(s, dict):
        return {}
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise _TooBig()
    out: dict[str, Any] = {}
    t = s.get("type")
    preserve = s.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = s.get("x-kubernetes-embedded-resource") is True
    if s.get("x-kubernetes-int-or-string") is True:
        if not logic:
            out["type"] = ["integer", "string"]
    elif isinstance(t, str) and t in _TYPES:
        out["type"] = t
    if not _BOUNDS_SET.isdisjoint(s):  # (most nodes have none: a set test, not nine lookups)
        for k in _BOUNDS:
            v = s.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if k == "multipleOf" and v <= 0:
                    continue
                out[k] = v
        for k, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if s.get(k) is True and bound in out:  # OpenAPI v3.0: a flag on minimum/maximum
                out[k] = out.pop(bound)
    enum = s.get("enum")
    if isinstance(enum, list):
        out["enum"] = _full(enum)
    props = s.get("properties") if isinstance(s.get("properties"), dict) else None
    req = s.get("required")
    if isinstance(req, list):
        # the API server applies defaults before it validates: a defaulted field is present
        req = [r for r in req if isinstance(r, str)
               and (logic or props is None or not (isinstance(props.get(r), dict) and "default" in props[r]))]
        if req:
            out["required"] = req
    pat = s.get("pattern")
    if isinstance(pat, str) and go_pattern(pat) is not None:
        out["pattern"] = pat  # (a pattern RE2 refuses, the API server refuses in the CRD: not checked here)
    fmt = s.get("format")
    if isinstance(fmt, str) and t in (None, "string"):
        f = fmt.replace("-", "")
        if f in _CHECKS:
            out["format"] = f
    dmap = d if isinstance(d, dict) else None
    if props is not None:
        # (a property's schema is read only when the data has the field)
        out["properties"] = {k: (_translate(props[k], budget, depth + 1, logic, prune=prune,
                                            d=dmap[k] if dmap is not None else _ANY)
                                 if d is _ANY or (dmap is not None and k in dmap) else {})
                             for k in props if isinstance(k, str)}
    ap = s.get("additionalProperties")
    if isinstance(ap, dict):
        if d is _ANY:
            out["additionalProperties"] = _translate(ap, budget, depth + 1, logic, prune=prune)
        elif dmap is not None:  # a map: its values each against the value schema
            p = out.setdefault("properties", {})
            for k, v in dmap.items():
                if k not in p:
                    p[k] = _translate(ap, budget, depth + 1, logic, prune=prune, d=v)
    items = s.get("items")
    if isinstance(items, dict):
        if d is _ANY:
            out["items"] = _translate(items, budget, depth + 1, logic, prune=prune)
        elif isinstance(d, list) and d:
            out["prefixItems"] = [_translate(items, budget, depth + 1, logic, prune=prune, d=x) for x in d]
    if not _LOGIC_SET.isdisjoint(s):
        for k in ("allOf", "anyOf", "oneOf"):
            v = s.get(k)
            if isinstance(v, list) and v:
                out[k] = [_translate(x, budget, depth + 1, True, prune=prune, d=d) for x in v]
        if isinstance(s.get("not"), dict):
            out["not"] = _translate(s["not"], budget, depth + 1, True, prune=prune, d=d)
    if not logic:
        if embedded or root:
            p = out.setdefault("properties", {})
            for k in ("apiVersion", "kind"):
                p.setdefault(k, {"type": "string"})
            # ObjectMeta: validated and pruned by the API server's own code, not the CRD's schema
            p["metadata"] = {}
        if prune and not preserve and not isinstance(ap, dict) and (t == "object" or "properties" in out or embedded):
            out.setdefault("properties", {})
            out["additionalProperties"] = False  # the API server prunes what the schema does not name
            out["x-pruned"] = True
    if s.get("nullable") is True:
        return {"if": {"not": {"type": "null"}}, "then": out}
    return out


def _prune_nulls(x: Any, s: Any) -> Any:
    """A copy of ``x`` as the API server has it before validation: nulls of non-nullable
    fields removed (defaulting.PruneNonNullableNullsWithoutDefaults) or, when the field has
    a default, replaced by it (defaulting.Default)."""
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            sub = None
            if isinstance(s, dict):
                props = s.get("properties")
                if isinstance(props, dict) and isinstance(props.get(k), dict):
                    sub = props[k]
                elif isinstance(s.get("additionalProperties"), dict):
                    sub = s["additionalProperties"]
            if v is None and sub is not None and sub.get("nullable") is not True:
                if "default" not in sub:
                    continue  # removed
                v = _full(sub["default"])  # defaulted (defaulting.Default)
            out[k] = _prune_nulls(v, sub)
        return out
    if isinstance(x, list):
        items = s.get("items") if isinstance(s, dict) else None
        items = items if isinstance(items, dict) else None
        if items is not None and items.get("nullable") is not True and "default" in items:
            x = [_full(items["default"]) if v is None else v for v in x]
        return [_prune_nulls(v, items) for v in x]
    return x


class _Target:
    """One CRD version an example can be created as; its schema is read and compiled only
    when an example asks for it."""

    def __init__(self, crd_name: str, version: str, served: bool, sf: Any, schema_node: Any, status_sub: bool,
                 preserve_all: bool) -> None:
        self.crd_name = crd_name
        self.version = version
        self.served = served
        self.sf = sf
        self.schema_node = schema_node
        self.status_sub = status_sub
        self.preserve_all = preserve_all  # spec.preserveUnknownFields: nothing is pruned
        self._compiled: Any = False

    def compiled(self) -> Optional[tuple[Any, bool]]:
        """(the schema as data: a dict, or a YAML text's lazy view, _LazyMap; preserve_all),
        or None (no schema, or one that cannot be read)."""
        if self._compiled is False:
            self._compiled = None
            try:
                self._compiled = _compile(self.sf, self.schema_node, self.preserve_all)
            except (RecursionError, MemoryError, ValueError, TypeError):
                self._compiled = None
        got: Optional[tuple[Any, bool]] = self._compiled
        return got

    def read_by_pyyaml(self) -> None:
        """The lazy view of the schema met what only PyYAML decides (``_Fallback``): the schema
        is read again by PyYAML, here and wherever the same text comes again in this process."""
        src = _schema_source(self.sf, self.schema_node)
        if src is not None:
            _BY_PYYAML.add(_text_key(src[1]))
            for key in [k for k in _CACHE if k[0] == _text_key(src[1])]:
                del _CACHE[key]
                _CACHE_HELD.pop(key, None)
        _BY_NODE.pop((id(self.schema_node), self.preserve_all), None)
        self._compiled = False


# compiled schemas of the last CRD versions seen in this process, by the schema's text: an
# operator's bundles mostly repeat their CRDs, and its bundles are checked in one process. A
# YAML schema's lazy view holds rapidyaml's tree (about four times the text's size): the
# schemas held are bounded by their texts' size too.
_CACHE: "OrderedDict[tuple[bytes, bool], Optional[tuple[Any, bool]]]" = OrderedDict()
_CACHE_SIZE = 48
_CACHE_BYTES = 8_000_000
_CACHE_HELD: dict[tuple[bytes, bool], int] = {}  # key -> the text's size in bytes


def _compile(sf: Any, node: Any, preserve_all: bool) -> Optional[tuple[Any, bool]]:
    if isinstance(node, Mapping):  # built by the loader: nothing to share
        return _build(to_py(node, [MAX_SCHEMA_NODES * 4]), preserve_all)
    # the loader shares the nodes of a file read again with the same content (load.ParseMemo):
    # its key into _CACHE is remembered (None: no schema text)
    held = _BY_NODE.get((id(node), preserve_all))
    if held is not None and held[0] is node and (held[1] is None or held[1] in _CACHE):
        _BY_NODE.move_to_end((id(node), preserve_all))
        if held[1] is None:
            return None
        _CACHE.move_to_end(held[1])
        return _CACHE[held[1]]
    got, key = _compile_text(sf, node, preserve_all)
    _BY_NODE[(id(node), preserve_all)] = (node, key)
    while len(_BY_NODE) > _CACHE_SIZE:
        _BY_NODE.popitem(last=False)
    return got


_BY_NODE: "OrderedDict[tuple[int, bool], tuple[Any, Optional[tuple[bytes, bool]]]]" = OrderedDict()


def _compile_text(sf: Any, node: Any, preserve_all: bool) -> tuple[Optional[tuple[Any, bool]], Optional[tuple[bytes, bool]]]:
    """(the compiled schema or None, its key in _CACHE or None)."""
    src = _schema_source(sf, node)
    if src is None:
        return None, None
    data = src[1].encode("utf-8", "surrogatepass")
    key = (hashlib.sha1(data).digest(), preserve_all)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key], key
    got = _build(_pyyaml(src[1]) if key[0] in _BY_PYYAML else _parse_schema(src, data), preserve_all)
    _CACHE[key] = got
    _CACHE_HELD[key] = len(data)
    for k in [k for k in _CACHE_HELD if k not in _CACHE]:
        del _CACHE_HELD[k]
    total = sum(_CACHE_HELD.values())
    while len(_CACHE) > _CACHE_SIZE or (total > _CACHE_BYTES and len(_CACHE) > 1):
        old, _v = _CACHE.popitem(last=False)
        total -= _CACHE_HELD.pop(old, 0)
    return got, key


def _text_key(text: str) -> bytes:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


# schema texts whose lazy view met what only PyYAML decides (_Fallback): read by PyYAML
_BY_PYYAML: set[bytes] = set()


def _build(schema: Any, preserve_all: bool) -> Optional[tuple[Any, bool]]:
    return (schema, preserve_all) if isinstance(schema, dict) else None


def _validator(schema: Any, preserve_all: bool, data: Any) -> Any:
    """A jsonschema validator of ``data`` against the translated schema, or None when the
    schema is too big or too deep."""
    try:
        js = _translate(schema, [MAX_SCHEMA_NODES], root=True, prune=not preserve_all, d=data)
    except (_TooBig, RecursionError):
        return None
    return _validator_class()(js, format_checker=_format_checker())


def _targets(bundle: Bundle) -> dict[tuple[str, str, str], _Target]:
    """(group, version, kind) -> _Target for every CRD version in the bundle."""
    out: dict[tuple[str, str, str], _Target] = {}
    for m in bundle.crds:
        sp = m.spec()
        if sp is None:
            continue
        group = sp.str("group") or ""
        names = sp.get("names")
        kind = names.str("kind") if isinstance(names, Mapping) else None
        if not kind:
            continue
        crd_name = m.name or f"{kind}.{group}"
        p = sp.get("preserveUnknownFields")
        if m.api_version == "apiextensions.k8s.io/v1beta1":
            preserve_all = not (isinstance(p, Scalar) and p.value is False)  # v1beta1 defaults it to true: no pruning
        else:
            preserve_all = isinstance(p, Scalar) and p.value is True
        common_schema = _path(sp, "validation", "openAPIV3Schema")
        common_status = _path(sp, "subresources", "status") is not None
        versions = sp.get("versions")
        if isinstance(versions, Sequence):
            for v in versions:
                if isinstance(v, Mapping) and (vname := v.str("name")):
                    served = v.get("served")
                    own = _path(v, "schema", "openAPIV3Schema")
                    t = _Target(crd_name, vname, not (isinstance(served, Scalar) and served.value is False), m.file,
                                own if own is not None else common_schema,
                                common_status or _path(v, "subresources", "status") is not None, preserve_all)
                    out.setdefault((group, t.version, kind), t)
        elif sversion := sp.str("version"):
            out.setdefault((group, sversion, kind),
                           _Target(crd_name, sversion, True, m.file, common_schema, common_status, preserve_all))
    return out


def _schema_source(sf: Any, node: Any) -> Optional[tuple[str, str]]:
    """("json", text) or ("yaml", text) of a schema body the loader did not build into nodes
    (``load.SKIP_KEYS``: no other rule reads them): JSON from its first character, or the
    block below the key (the lines indented at least as deep as the value's first line)."""
    if not isinstance(node, Skipped) or not node.is_map() or sf.text is None:
        return None
    ln, col = node.line, node.col
    text = sf.text
    start = _line_start(text, ln)  # the first line's offset
    if start is None:
        return None
    ind = col - 1
    if text[start + ind:start + ind + 1] == "{":
        try:
            _v, end = _DEC.raw_decode(text, start + ind)
        except (ValueError, RecursionError):
            return None
        return "json", text[start + ind:end]
    if ind < 1:
        return None
    # the block ends before the first line (not blank, not a comment) indented less
    m = _block_end(ind).search(text, start)
    end = m.start() if m else len(text)
    return "yaml", " " * ind + text[start + ind:end]


def _line_start(text: str, ln: int) -> Optional[int]:
    """Offset in ``text`` of line ``ln`` (1-based), None when the text has no such line. The
    newlines before it are found one by one: a CRD file's text is not split into lines (the
    schema opens near its top, and no other rule reads the file's lines)."""
    if ln < 1:
        return None
    i = 0
    for _n in range(ln - 1):
        i = text.find("\n", i)
        if i < 0:
            return None
        i += 1
    return i


@lru_cache(maxsize=64)
def _block_end(ind: int) -> re.Pattern[str]:
    # a line of at most ind-1 spaces, then a character that is not a space, a line break or
    # '#'; the negative lookahead spares the engine backtracking through deeper indentation
    return re.compile(r"\n(?! {%d})(?= *[^ \r\n#])" % ind)


def _parse_schema(src: tuple[str, str], data: Optional[bytes] = None) -> Any:
    """The schema's data: ``json.loads`` of a JSON text; a YAML text's lazy view
    (``_lazy_schema``) where rapidyaml reads it as PyYAML would, else PyYAML's data."""
    how, text = src
    if how == "json":
        return json.loads(text)
    try:
        return _lazy_schema(text, data)
    except (_Fallback, UnicodeError):
        return _pyyaml(text)


def _pyyaml(text: str) -> Any:
    """The reference: the text as PyYAML's safe loader (YAML 1.1, as the API server's YAML
    decoder) reads it, or None when it refuses it."""
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506 - a safe loader
    except Exception:  # noqa: BLE001 - a schema the loader refuses: not checked (yaml-syntax reports the file)
        return None


# ---------------------------------------------------------------------------------------
# A schema's YAML text as data, read lazily: rapidyaml parses the text into a tree once, and
# Python values are made only for the nodes the rule reaches (an example reaches a tiny
# part of its schema: _translate and _prune_nulls follow the example's data). A mapping
# becomes a ``_LazyMap``, a dict whose scalar values are read at once and whose collection
# values (``_Node``) are read when first asked for; a sequence becomes a list. Scalars and
# keys resolve as PyYAML's safe loader resolves them (yamlload.resolve_plain: YAML 1.1);
# whatever the tree cannot tell reliably (anchors, aliases, tags, merge keys, complex or null
# keys, timestamps, characters PyYAML refuses) sends the whole schema to PyYAML (_Fallback):
# up front from the text, or when a reached node shows it (_Check_example reads it again).


class _Fallback(Exception):
    """The lazy view meets something only PyYAML decides: the schema is read by PyYAML."""


# candidates, in the YAML text, for what makes PyYAML refuse the whole text while rapidyaml
# reads it (``_pyyaml_only``): a plain '=' or '<<' as a value (no constructor), a timestamp
# whose date or time does not exist (PyYAML makes every timestamp a datetime), a merge key
# '<<' (merging what is not a mapping), in a flow collection a plain scalar's ':' before ',',
# '?', '[', ']', '{' or '}' or a plain scalar opening with ':' (libyaml: "found unexpected
# ':'"; rapidyaml reads them); a tab after a key's colon (rapidyaml reads "a:<tab>b" as one
# scalar, PyYAML as a mapping)
# (each pattern opens with a literal character, which the regular expression engine skips to)
_EQ_CANDIDATE = re.compile(r"=[ \t]*(?=\r?$|[ \t]#|[,\]}])", re.M)
_MERGE_CANDIDATE = re.compile(r"<<[ \t]*(?=\r?$|[ \t]#|[,\]}:])", re.M)
_STAMP_CANDIDATE = re.compile(r"-[0-9][0-9]?-[0-9]")  # (a date's month: the year is looked at after)
_STAMP_END = re.compile(r"[^#,\]}\r\n]*")


def _match_end(rx: re.Pattern[str], s: str, i: int) -> int:
    """Where ``rx``'s match at ``i`` ends (``rx`` matches the empty string: it matches at every offset)."""
    m = rx.match(s, i)
    assert m is not None
    return m.end()
def _pyyaml_only(text: str) -> bool:
    """Whether the text may hold something PyYAML refuses (so the whole schema) that rapidyaml
    reads, or reads otherwise (``_EQ_CANDIDATE``, ``_MERGE_CANDIDATE``, ``_STAMP_CANDIDATE``):
    a superset. A valid timestamp, which PyYAML makes a datetime, is found where the view
    reaches it (``_scalar``)."""
    for rx in (_EQ_CANDIDATE, _MERGE_CANDIDATE):
        for m in rx.finditer(text):
            if starts_scalar(text, m.start()) or rx is _MERGE_CANDIDATE and text[m.end():m.end() + 1] == ":":
                return True
    for m in _STAMP_CANDIDATE.finditer(text):
        i = m.start() - 4
        if i < 0 or not text[i:i + 4].isdigit() or not starts_scalar(text, i):
            continue
        end = _match_end(_STAMP_END, text, i)
        rest = text[i:end].split(" #")[0].split("\t#")[0].rstrip(" \t")
        if text[end:end + 1] in ("\r", "\n", "") and rest == text[i:end].rstrip(" \t") and _DATE_ALONE.fullmatch(rest):
            return True  # a date alone at the end of its line: the scalar may go on below
        if _TIMESTAMP.match(rest):
            try:
                _CONSTRUCTOR.construct_yaml_timestamp(yaml.ScalarNode(_TIMESTAMP_TAG, rest))
            except Exception:  # noqa: BLE001 - PyYAML refuses it
                return True
    return False


_PLAIN_CACHE: dict[str, tuple[Any]] = {}
_PLAIN_CACHE_MAX = 50_000
_PLAIN_REFUSED = frozenset(("timestamp", "value", "merge", "yaml"))
_R: Any = None  # the ryml module, once a schema is read
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_DATE_ALONE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")
_TIMESTAMP = next(rx for tag, rx in _RESOLVERS.get("0", []) if tag == _TIMESTAMP_TAG)


class _Node:
    """A collection node of a parsed schema that is not read yet."""
    __slots__ = ("tree", "id")

    def __init__(self, tree: Any, i: int) -> None:
        self.tree = tree
        self.id = i


class _LazyMap(dict[Any, Any]):
    """A mapping of a schema's tree: a dict whose collection values are read on first use."""
    __slots__ = ()

    def __getitem__(self, k: Any) -> Any:
        v = dict.__getitem__(self, k)
        return _settle(self, k, v) if type(v) is _Node else v

    def get(self, k: Any, default: Any = None) -> Any:
        v = dict.get(self, k, default)
        return _settle(self, k, v) if type(v) is _Node else v

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]  # a list, not a view: callers iterate
        return [(k, self[k]) for k in dict.keys(self)]

    def values(self) -> list[Any]:  # type: ignore[override]  # a list, not a view: callers iterate
        return [self[k] for k in dict.keys(self)]

    def __copy__(self) -> Any:
        return _full(self)

    def __deepcopy__(self, memo: Any) -> Any:
        return _full(self)


def _settle(m: _LazyMap, k: Any, node: _Node) -> Any:
    v = _read(node.tree, node.id)
    dict.__setitem__(m, k, v)
    return v


def _full(x: Any) -> Any:
    """``x`` as plain data, read through (a new copy: the caller may change it)."""
    if isinstance(x, dict):
        return {k: _full(x[k]) for k in x}
    if isinstance(x, list):
        return [_full(v) for v in x]
    return x


def _lazy_schema(text: str, data: Optional[bytes] = None) -> Optional[_LazyMap]:
    """The lazy view of a schema's YAML text (a mapping), or _Fallback (PyYAML decides).
    ``data``: the text's UTF-8 (surrogatepass), when the caller has it."""
    global _R
    from ... import fastyaml

    if not fastyaml.ENABLED:
        raise _Fallback()
    if data is None:
        data = text.encode("utf-8", "surrogatepass")
    if fastyaml.has_unprintable(data):
        raise _Fallback()
    colons = fastyaml.odd_colons(text)
    if colons == "pyyaml" or _pyyaml_only(text):
        raise _Fallback()
    tree, _why = fastyaml.ryml_tree(data, fastyaml._node_props(text))
    if tree is None:
        raise _Fallback()
    if _R is None:
        import ryml as _R
    if colons == "bare":
        kind = tree.type
        if any(kind(i) & _R.KEYNIL for i in range(tree.size())):
            raise _Fallback()  # an empty plain key: libyaml refuses it
    root = tree.root_id()
    if not tree.type(root) & _R.MAP:
        raise _Fallback()
    lazy: _LazyMap = _read(tree, root)  # a mapping at the root: a _LazyMap
    return lazy


def _read(tree: Any, n: int) -> Any:
    """The value of collection node ``n``: a _LazyMap (its collections left unread), or a list."""
    R = _R
    NONE = R.NONE
    props = R.KEYANCH | R.VALANCH | R.KEYREF | R.VALREF | R.KEYTAG | R.VALTAG | R.KEY_UNFILT | R.VAL_UNFILT
    ty = tree.type(n)
    if ty & props:
        raise _Fallback()
    c = tree.first_child(n)
    if ty & R.MAP:
        out = _LazyMap()
        while c != NONE:
            ty = tree.type(c)
            if ty & props:
                raise _Fallback()
            k = _scalar(tree.key(c), ty, R.KEY_PLAIN, R.KEY_SQUO | R.KEY_DQUO | R.KEY_LITERAL | R.KEY_FOLDED)
            if (k == "<<" and ty & R.KEY_PLAIN) or ty & R.KEYNIL:
                raise _Fallback()  # a merge key, an empty plain key
            if ty & (R.MAP | R.SEQ):
                dict.__setitem__(out, k, _Node(tree, c))
            else:
                dict.__setitem__(out, k, _scalar(tree.val(c), ty, R.VAL_PLAIN,
                                                 R.VAL_SQUO | R.VAL_DQUO | R.VAL_LITERAL | R.VAL_FOLDED))
            c = tree.next_sibling(c)
        return out
    if ty & R.SEQ:
        items: list[Any] = []
        while c != NONE:
            cty = tree.type(c)
            if cty & (R.MAP | R.SEQ):
                items.append(_read(tree, c))
            elif cty & props:
                raise _Fallback()
            else:
                items.append(_scalar(tree.val(c), cty, R.VAL_PLAIN, R.VAL_SQUO | R.VAL_DQUO | R.VAL_LITERAL | R.VAL_FOLDED))
            c = tree.next_sibling(c)
        return items
    raise _Fallback()


def _scalar(mv: Any, ty: int, plain: int, quoted: int) -> Any:
    """A key's or value's text (``mv``: a memoryview of the tree's arena, None when empty)
    as PyYAML makes it: a quoted or block scalar is a string, a plain one resolved by YAML 1.1."""
    try:
        s = "" if mv is None else str(mv, "utf-8")
    except UnicodeDecodeError:
        raise _Fallback() from None
    if ty & plain:
        hit = _PLAIN_CACHE.get(s)
        if hit is None:
            tag, v = resolve_plain(s)
            kind = tag.rsplit(":", 1)[-1]
            if kind in _PLAIN_REFUSED or (kind in ("int", "float") and isinstance(v, str)):
                raise _Fallback()  # PyYAML makes a datetime, or refuses it
            hit = (v,)
            if len(_PLAIN_CACHE) < _PLAIN_CACHE_MAX:
                _PLAIN_CACHE[s] = hit
        return hit[0]
    if ty & quoted:
        return s
    raise _Fallback()  # no style known


def _path(node: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(k)
    return node


# ---------------------------------------------------------------------------------------
# Where a JSON path is inside the annotation's text

_WS = re.compile(r"[ \t\n\r]*")
_DEC = json.JSONDecoder()


def _locate(s: str, i: int, path: list[Any], key: bool = False) -> Optional[int]:
    """Offset in ``s`` of the value at ``path`` inside the JSON value starting at ``i``
    (of its key when ``key`` and the last step is a field name); None when not found."""
    try:
        for depth, step in enumerate(path):
            i = _match_end(_WS, s, i)
            ch = s[i:i + 1]
            if ch == "{" and isinstance(step, str):
                i = _match_end(_WS, s, i + 1)
                found = None
                while s[i:i + 1] == '"':
                    kstart = i
                    k, i = scanstring(s, i + 1)
                    i = _match_end(_WS, s, i) + 1  # the colon
                    i = _match_end(_WS, s, i)
                    if k == step:
                        found = (kstart, i)  # the last of duplicate keys wins, as in json.loads
                    _v, i = _DEC.raw_decode(s, i)
                    i = _match_end(_WS, s, i)
                    if s[i:i + 1] != ",":
                        break
                    i = _match_end(_WS, s, i + 1)
                if found is None:
                    return None
                if key and depth == len(path) - 1:
                    return found[0]
                i = found[1]
            elif ch == "[" and isinstance(step, int):
                i = _match_end(_WS, s, i + 1)
                for _n in range(step):
                    _v, i = _DEC.raw_decode(s, i)
                    i = _match_end(_WS, s, i)
                    if s[i:i + 1] != ",":
                        return None
                    i = _match_end(_WS, s, i + 1)
            else:
                return None
        return _match_end(_WS, s, i)
    except (ValueError, IndexError, RecursionError):
        return None


def _dotted(path: Any) -> str:
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", p):
            out += f".{p}" if out else p
        else:
            out += f"[{json.dumps(p)}]"
    return out or "the object"


def _show(v: Any, limit: int = 60) -> str:
    try:
        s = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        s = str(v)
    return s if len(s) <= limit else s[:limit - 3] + "..."


_JTYPE = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer", float: "a number",
          type(None): "null"}


def _jtype(v: Any) -> str:
    return _JTYPE.get(type(v), "a value")


def _want_type(t: Any) -> str:
    ts = t if isinstance(t, list) else [t]
    names = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
             "number": "a number", "boolean": "a boolean", "null": "null"}
    return " or ".join(names.get(x, str(x)) for x in ts)


def _allowed(err: Any) -> str:
    """What the schema allows, for the detail of an enum or pattern finding ('' otherwise)."""
    v, val = err.validator, err.validator_value
    if v == "enum" and isinstance(val, list):
        return "The schema allows " + ", ".join(_show(x, 40) for x in val[:12]) + (", ..." if len(val) > 12 else "") + ". "
    if v == "pattern":
        return f"The schema's pattern: {_show(val, 80)}. "
    return ""


def _problem(err: Any) -> Optional[str]:
    """What is wrong, in words, for a jsonschema error (None: not reported)."""
    v, val, inst = err.validator, err.validator_value, err.instance
    where = _dotted(list(err.absolute_path))
    if v == "type":
        if val == ["integer", "string"]:
            return f"{where} is {_jtype(inst)} ({_show(inst)}); the schema wants an integer or a string (int-or-string)"
        return f"{where} is {_jtype(inst)} ({_show(inst)}); the schema wants {_want_type(val)}"
    if v == "required":
        missing = [r for r in val if isinstance(inst, dict) and r not in inst]
        path = list(err.absolute_path)
        return (f"{_dotted(path + [missing[0]]) if missing else where} is required by the schema and missing"
                if len(missing) <= 1 else
                f"{where} lacks the required fields {', '.join(missing)}")
    if v == "enum":
        return f"{where} is {_show(inst)}, not one of the values the schema allows"
    if v == "pattern":
        return f"{where} is {_show(inst)}, which does not match the schema's pattern"
    if v == "format":
        return f"{where} is {_show(inst)}, which is not a valid {val} (the schema's format)"
    if v in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        word = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}[v]
        return f"{where} is {_show(inst)}; the schema wants {word} {val}"
    if v in ("minLength", "maxLength"):
        return f"{where} has {len(inst)} characters; the schema wants {'at least' if v == 'minLength' else 'at most'} {val}"
    if v in ("minItems", "maxItems"):
        return f"{where} has {len(inst)} items; the schema wants {'at least' if v == 'minItems' else 'at most'} {val}"
    if v in ("minProperties", "maxProperties"):
        return f"{where} has {len(inst)} fields; the schema wants {'at least' if v == 'minProperties' else 'at most'} {val}"
    if v == "multipleOf":
        return f"{where} is {_show(inst)}; the schema wants a multiple of {val}"
    if v in ("anyOf", "oneOf"):
        return f"{where} is {_show(inst)}, which matches {'none' if v == 'anyOf' else 'not exactly one'} of the schema's {v} alternatives"
    if v == "not":
        return f"{where} is {_show(inst)}, which the schema's 'not' excludes"
    return None


def _prepared(t: _Target, item: dict[str, Any]) -> Optional[tuple[Any, Any]]:
    """(the example's data as the API server validates it, its validator), or None."""
    got = t.compiled()
    if got is None:
        return None
    schema, preserve_all = got
    data = _prune_nulls(item, schema)
    if t.status_sub and isinstance(data, dict):
        data.pop("status", None)  # the status subresource resets it on create
    val = _validator(schema, preserve_all, data)
    return None if val is None else (data, val)
