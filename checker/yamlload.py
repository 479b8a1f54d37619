"""YAML with positions, on libyaml's C parser, hardened for hostile input.

One pass over libyaml's event stream builds positioned nodes (``checker.nodes``). The same
pass detects duplicate keys, enforces nesting and alias-expansion limits, and skips building
nodes for subtrees no rule reads (``skip_keys``: CRD ``openAPIV3Schema`` bodies, ~80-95% of a
catalog's bytes) while still checking them for syntax, duplicate keys and limits, so the
verdict is the same as a full load.

Unlike ``yaml.safe_load``, this accepts everything Kubernetes accepts: a plain ``=`` (the
YAML 1.1 ``value`` tag PyYAML's safe constructor cannot build) is the string ``"="``,
timestamps stay strings, unknown local tags keep their text.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional
from urllib.parse import unquote_to_bytes

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from .finding import clip
from .nodes import Mapping, Node, Scalar, Sequence, Skipped

try:  # libyaml's C parser: an order of magnitude faster than the pure-Python one
    from yaml import CSafeLoader as _Loader

    C_LOADER = True
except ImportError:  # pragma: no cover - pyyaml built without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore

    C_LOADER = False


@dataclass
class Limits:
    max_file_bytes: int = 16 * 1024 * 1024
    # the deepest manifest in community-operators-prod (76,036 YAML files, Nov 2026) nests 58
    # levels (keycloak-operator's KeycloakRealmImport CRD); 128 leaves room for real growth
    max_depth: int = 128
    max_alias_nodes: int = 100_000  # nodes reachable through aliases, summed (alias bombs)


@dataclass
class Problem:
    """A problem found while reading a file; the loader turns it into a finding."""

    rule: str  # yaml-syntax | yaml-duplicate-key | yaml-limits
    line: int
    column: int
    message: str
    severity: Optional[str] = None  # None: the rule's default
    # False: the file was still read whole (the problem is one Kubernetes' decoder refuses, but
    # every node is there, so rules may trust what they read: ``SourceFile.readable``)
    fatal: bool = True
    detail: str = ""  # the why and the fix (Finding.detail); ``message`` is one sentence


class _Abort(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


STR = "tag:yaml.org,2002:str"
MERGE = "tag:yaml.org,2002:merge"
NULL = "tag:yaml.org,2002:null"
_NULL_TEXTS = frozenset(("", "~", "null", "Null", "NULL"))
_RESOLVERS = yaml.resolver.Resolver.yaml_implicit_resolvers
_WILDCARD = _RESOLVERS.get(None, [])
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_BOOL = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}


def resolve_plain(value: str) -> tuple[str, object]:
    """(tag, python value) of a plain scalar under the YAML 1.1 implicit rules."""
    resolvers = _RESOLVERS.get(value[0] if value else "", [])
    for tag, regexp in list(resolvers) + list(_WILDCARD):
        if regexp.match(value):
            return tag, _construct(tag, value)
    return STR, value


def _construct(tag: str, value: str):
    """The Python value of a scalar with a resolved or explicit YAML 1.1 tag. Text that does
    not fit its explicit tag (``!!bool maybe``, ``!!int ''``) keeps its text: never raises."""
    kind = tag.rsplit(":", 1)[-1]
    if kind == "null":
        return None
    if kind == "bool":
        return _BOOL.get(value.lower(), value)
    if kind == "int":
        try:
            return _CONSTRUCTOR.construct_yaml_int(yaml.ScalarNode(tag, value))
        except (ValueError, IndexError, yaml.YAMLError):
            return value
    if kind == "float":
        try:
            return _CONSTRUCTOR.construct_yaml_float(yaml.ScalarNode(tag, value))
        except (ValueError, IndexError, yaml.YAMLError):
            return value
    # timestamp, value (a bare "="), merge ("<<" handled by the builder), yaml: keep text
    return value


_plain_cache: dict = {}
_PLAIN_CACHE_MAX = 50_000


def _scalar(ev: ScalarEvent) -> Scalar:
    m = ev.start_mark
    value = ev.value
    style = ev.style or None
    tag = ev.tag
    if tag and tag != "!":
        if tag.startswith("tag:yaml.org,2002:") and tag != STR:
            pv = _construct(tag, value)
        else:
            pv = value
    elif ev.implicit[0] and style is None:
        hit = _plain_cache.get(value)
        if hit is None:
            hit = resolve_plain(value)
            if len(_plain_cache) < _PLAIN_CACHE_MAX:
                _plain_cache[value] = hit
        tag, pv = hit
    else:
        tag, pv = STR, value
    return Scalar(m.line + 1, m.column + 1, pv, value, style, tag)


class _Frame:
    __slots__ = ("node", "is_map", "key", "keys", "weight", "anchor", "skip", "skip_next", "cur", "dup",
                 "merge", "maps_only", "start")

    def __init__(self, node, is_map, anchor, skip):
        self.node = node  # Mapping/Sequence, or None while skipping
        self.is_map = is_map
        self.key = None  # pending key (mapping), or a marker while expecting a value
        self.keys = {} if is_map else None  # key text -> line, for duplicate detection
        self.weight = 1
        self.anchor = anchor
        self.skip = skip
        self.skip_next = False
        self.cur = None  # [line, value text] of the key being read
        self.dup = None  # a repeated key waiting for its value
        self.merge = None  # (line, column) of a merge key ``<<`` waiting for its value
        self.maps_only = True  # (sequence) every item so far is a mapping (a merge key's list)
        self.start = None  # (line, column) where the collection starts


_NO_KEY = object()


def parse(text: str, limits: Optional[Limits] = None, skip_keys: frozenset = frozenset(),
          placeholders: Optional[dict] = None, depths: Optional[dict] = None, info: Optional[dict] = None) -> tuple[list, list]:
    """Parse every document of ``text``: with the C accelerator (``checker._cnodes``) when it is
    built and not turned off (``OLM_CHECK_PURE_YAML=1``), else with the pure path
    (``_parse_py``); both give the same documents and problems (tests/test_cnodes.py).
    ``info`` (the C path only) gets ``nodes``: how many nodes were built."""
    if ACCELERATED and text.__class__ is str:
        got = _parse_c(text, limits, skip_keys, placeholders, depths, info)
        if got is not None:
            return got
    return _parse_py(text, limits, skip_keys, placeholders, depths)


def _parse_c(text: str, limits: Optional[Limits], skip_keys: frozenset, placeholders: Optional[dict],
             depths: Optional[dict], info: Optional[dict] = None) -> Optional[tuple]:
    """``_parse_py``'s result built in C, or None when the pure path must decide: libyaml refused
    the text (the vendored libyaml and PyYAML's may word or place an error differently) or it
    reaches the nesting limit (where libyaml's own limit may stop first)."""
    limits = limits or Limits()
    held = dict(placeholders) if placeholders else None  # the C path takes what it finds from a copy
    found: Optional[dict] = {} if depths is not None else None
    got = _cnodes.parse(text, int(limits.max_depth), int(limits.max_alias_nodes),
                        skip_keys if isinstance(skip_keys, (set, frozenset)) else frozenset(skip_keys), held, found)
    if got is None:
        return None
    if placeholders and held is not None:
        for line in [k for k in placeholders if k not in held]:
            del placeholders[line]
    if found:
        depths.update(found)
    if info is not None:
        info["nodes"] = got[2]
    return got[0], got[1]


def _parse_py(text: str, limits: Optional[Limits] = None, skip_keys: frozenset = frozenset(),  # noqa: C901
              placeholders: Optional[dict] = None, depths: Optional[dict] = None) -> tuple[list, list]:
    """Parse every document of ``text`` (the pure path: PyYAML's libyaml events, nodes built here).

    Returns (documents, problems). A document is a root node (``None`` for an empty
    document). On a syntax error or a broken limit, the documents before it are returned
    and the problem says where parsing stopped.

    ``placeholders`` (used by ``checker.fastyaml``): key line -> ``Skipped`` node standing
    for a skip key's value that was blanked out of ``text`` (checked elsewhere); the empty
    value found there is replaced by it, and the entry removed (what is left was not found).
    ``depths``: filled with key line -> the number of collections open around each
    placeholder's value (its nesting depth, for the depth limit of what was blanked).
    """
    limits = limits or Limits()
    docs: list[Optional[Node]] = []
    problems: list[Problem] = []
    anchors: dict[str, tuple[Optional[Node], int]] = {}
    alias_nodes = 0
    stack: list[_Frame] = []
    root: Optional[Node] = None

    def attach(frame: Optional[_Frame], node: Optional[Node], weight: int, scalar_ev=None, kind=None, pos=None):  # noqa: C901
        """Give a finished node (or, when skipping, its weight) to its parent. ``scalar_ev``
        is the scalar's event when the thing attached is a scalar that was not built.
        ``kind``: what was attached, when neither tells ("mapping", "sequence", or
        "sequence-of-maps": a list whose items are all mappings; None: unknown); ``pos``:
        its (line, column), when ``node`` does not have it."""
        nonlocal root
        if frame is None:
            root = node
            return
        frame.weight += weight
        if kind is None:
            kind = "scalar" if scalar_ev is not None else (node.kind if node is not None else None)
        if frame.is_map:
            if frame.key is None:
                # this node is a key
                text_key = None
                if scalar_ev is not None:
                    text_key = scalar_ev.value
                    if text_key == "<<" and ((scalar_ev.implicit[0] and not scalar_ev.style) or scalar_ev.tag == MERGE):
                        frame.merge = (scalar_ev.start_mark.line + 1, scalar_ev.start_mark.column + 1)
                    elif (scalar_ev.tag == NULL or (not scalar_ev.tag and scalar_ev.implicit[0] and not scalar_ev.style
                                                     and text_key in _NULL_TEXTS)):
                        m = scalar_ev.start_mark
                        problems.append(_null_key(m.line + 1, m.column + 1))
                elif isinstance(node, Scalar):
                    text_key = node.raw
                    if node.tag == MERGE and node.style is None:
                        frame.merge = (node.line, node.col)
                    elif node.value is None and node.tag == NULL:
                        problems.append(_null_key(node.line, node.col))
                elif kind in ("mapping", "sequence", "sequence-of-maps"):
                    line, col = (node.line, node.col) if node is not None else (pos or (1, 1))
                    problems.append(_collection_key(line, col, kind))
                frame.cur = None
                if text_key is not None and frame.merge is None:  # merge keys may repeat (go-yaml, yamllint)
                    prev = frame.keys.get(text_key)
                    if prev is not None:
                        line = (scalar_ev.start_mark.line + 1) if scalar_ev is not None else node.line
                        col = (scalar_ev.start_mark.column + 1) if scalar_ev is not None else node.col
                        frame.dup = (text_key, line, col, prev)
                    else:
                        frame.cur = [(scalar_ev.start_mark.line + 1) if scalar_ev is not None else node.line, None]
                        frame.keys[text_key] = frame.cur
                    frame.skip_next = (not frame.skip) and text_key in skip_keys
                else:
                    frame.skip_next = False
                frame.key = node if node is not None else _NO_KEY
            else:
                key = frame.key
                frame.key = None
                frame.skip_next = False
                if frame.merge is not None:
                    if kind not in ("mapping", "sequence-of-maps", None):
                        problems.append(_bad_merge(frame.merge[0], frame.merge[1], kind))
                    frame.merge = None
                vtext = scalar_ev.value if scalar_ev is not None else (node.raw if isinstance(node, Scalar) else None)
                if frame.cur is not None:
                    frame.cur[1] = vtext
                if frame.dup is not None:
                    text_key, line, col, prev = frame.dup
                    frame.dup = None
                    problems.append(_dup_key(text_key, line, col, prev[0], vtext is not None and prev[1] == vtext))
                if frame.node is not None and key is not _NO_KEY and node is not None:
                    if isinstance(key, Scalar) and key.tag == "tag:yaml.org,2002:merge" and key.style is None:
                        _merge(frame.node, node)
                    else:
                        frame.node.add(key, node)
        else:
            if kind is not None and kind != "mapping":
                frame.maps_only = False
            if frame.node is not None and node is not None:
                frame.node.items.append(node)

    loader = _Loader(text)
    next_event = loader.get_event  # the parser's own method: no generator around it
    try:
        while True:
            ev = next_event()
            if ev is None:
                break
            cls = ev.__class__
            parent = stack[-1] if stack else None
            if cls is ScalarEvent:
                if parent is not None and parent.node is not None and not parent.skip_next and not ev.anchor:
                    # the common case, inlined: a plain key, value or list item in a built
                    # collection (what ``attach`` does for it, step for step)
                    node = _scalar(ev)
                    if not parent.is_map:
                        parent.weight += 1
                        parent.maps_only = False
                        parent.node.items.append(node)
                        continue
                    key = parent.key
                    if key is None:
                        text_key = node.raw
                        if text_key not in parent.keys and node.value is not None and text_key != "<<":
                            parent.weight += 1
                            parent.cur = cur = [node.line, None]
                            parent.keys[text_key] = cur
                            parent.skip_next = text_key in skip_keys
                            parent.key = node
                            continue
                    elif parent.dup is None and key.__class__ is Scalar and not (key.tag == MERGE and key.style is None):
                        parent.weight += 1
                        parent.key = None
                        if parent.cur is not None:
                            parent.cur[1] = node.raw
                        parent.node.add(key, node)
                        continue
                    attach(parent, node, 1)
                    continue
                skipping = parent is not None and (parent.skip or (parent.skip_next and parent.key is not None))
                if skipping and not (parent.is_map and parent.key is None):
                    node = None
                    if parent.skip_next and not parent.skip:
                        m = ev.start_mark
                        node = Skipped(m.line + 1, m.column + 1, "scalar")
                        if placeholders and parent.cur is not None and ev.value == "" and ev.implicit[0] and not ev.style:
                            node = placeholders.pop(parent.cur[0], node)
                            if depths is not None:
                                depths[parent.cur[0]] = len(stack)
                    if ev.anchor:
                        anchors[ev.anchor] = (node, 1)
                    attach(parent, node, 1, ev)
                    continue
                if parent is not None and parent.skip:
                    # a key inside a skipped mapping: only its text matters (duplicates)
                    attach(parent, None, 1, ev)
                    continue
                node = _scalar(ev)
                if ev.anchor:
                    anchors[ev.anchor] = (node, 1)
                attach(parent, node, 1)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if len(stack) >= limits.max_depth:
                    m = ev.start_mark
                    raise _Abort(_too_deep(m.line + 1, m.column + 1, limits.max_depth))
                is_map = cls is MappingStartEvent
                skip = parent is not None and (parent.skip or (parent.skip_next and parent.key is not None))
                if skip:
                    frame = _Frame(None, is_map, ev.anchor, True)
                    frame.start = (ev.start_mark.line + 1, ev.start_mark.column + 1)
                    if parent is not None and not parent.skip:
                        m = ev.start_mark
                        # the placeholder handed to the parent when the subtree ends
                        frame.anchor = (ev.anchor, Skipped(m.line + 1, m.column + 1, "mapping" if is_map else "sequence"))
                    else:
                        frame.anchor = (ev.anchor, None)
                    stack.append(frame)
                else:
                    m = ev.start_mark
                    node = Mapping(m.line + 1, m.column + 1) if is_map else Sequence(m.line + 1, m.column + 1)
                    frame = _Frame(node, is_map, (ev.anchor, None), False)
                    stack.append(frame)
            elif cls is MappingEndEvent or cls is SequenceEndEvent:
                frame = stack.pop()
                anchor, placeholder = frame.anchor
                node = frame.node if not frame.skip else placeholder
                if anchor:
                    anchors[anchor] = (node, frame.weight)
                attach(stack[-1] if stack else None, node, frame.weight,
                       kind="mapping" if frame.is_map else ("sequence-of-maps" if frame.maps_only else "sequence"),
                       pos=frame.start)
            elif cls is AliasEvent:
                target = anchors.get(ev.anchor)
                if target is None:
                    m = ev.start_mark
                    raise _Abort(_no_anchor(m.line + 1, m.column + 1, ev.anchor))
                node, weight = target
                akind = node.kind if node is not None else None
                alias_nodes += weight
                if alias_nodes > limits.max_alias_nodes:
                    m = ev.start_mark
                    raise _Abort(_alias_bomb(m.line + 1, m.column + 1, limits.max_alias_nodes))
                if parent is not None and (parent.skip or (parent.skip_next and parent.key is not None)):
                    if parent.skip_next and not parent.skip and node is not None:
                        node = Skipped(ev.start_mark.line + 1, ev.start_mark.column + 1,
                                       node.kind if node.kind in ("mapping", "sequence") else "scalar")
                    else:
                        node = None
                attach(parent, node, weight, None, kind=akind,
                       pos=(ev.start_mark.line + 1, ev.start_mark.column + 1))
            elif cls is DocumentStartEvent:
                root = None
                anchors = {}
            elif cls is DocumentEndEvent:
                if isinstance(root, Scalar) and root.value is None and root.raw == "" and root.style is None:
                    root = None  # a bare '---': an empty document, as Kubernetes tooling reads it
                docs.append(root)
                root = None
    except _Abort as a:
        problems.append(a.problem)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        what = e.problem or "invalid YAML"
        if "maximum nesting depth" in what:
            # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000 levels itself, in its
            # scanner, which may run ahead of the events that would reach our own limit first
            problems.append(_too_deep(line, col, min(limits.max_depth, _LIBYAML_MAX_NEST)))
            return docs, problems
        ctx = f" ({e.context})" if e.context else ""
        problems.append(Problem("yaml-syntax", line, col, f"YAML syntax error: {clip(what + ctx, 100)}",
                                detail=_UNREADABLE))
    except yaml.YAMLError as e:  # ReaderError and friends
        line = col = 1
        pos = getattr(e, "position", None)
        if pos is not None:
            line, col = _line_col(text, pos)
        reason = getattr(e, "reason", None) or str(e).splitlines()[0]
        problems.append(Problem("yaml-syntax", line, col, f"YAML syntax error: {clip(reason, 100)}", detail=_UNREADABLE))
    except UnicodeDecodeError:
        # libyaml decodes a tag's %-escapes (``!a%ED%A0%80``) and checks only the UTF-8 lengths;
        # PyYAML then fails to turn the tag into text
        line, col = _bad_tag_escape(text)
        problems.append(Problem(
            "yaml-syntax", line, col, "YAML syntax error: a tag's %-escapes do not decode to UTF-8 text",
            detail=_UNREADABLE))
    except RecursionError:  # pragma: no cover - defensive, depth limit comes first
        problems.append(Problem("yaml-limits", 1, 1, "the file nests too deeply to be read",
                                detail="Nothing in it is checked. Flatten the structure."))
    finally:
        loader.dispose()
    return docs, problems


_LIBYAML_MAX_NEST = 1000  # libyaml 0.2.6's own nesting limit


_UNREADABLE = ("Nothing in this file can be read until it is fixed: opm, OLM and the API server refuse it too. "
               "Correct the syntax at this position (often an indentation slip, a tab, a missing ':' or an unclosed "
               "quote or bracket).")
_DECODER = ("Kubernetes' YAML decoder (sigs.k8s.io/yaml on go-yaml v2, which opm, operator-sdk's bundle "
            "validation, OLM and kubectl use) refuses the whole file")


def _dup_key(text_key: str, line: int, col: int, first: int, same: bool) -> Problem:
    if same:
        return Problem(
            "yaml-duplicate-key", line, col,
            f"the key '{clip(text_key)}' is repeated with the same value (first at line {first})",
            severity="warning",
            detail="Loaders keep one, so nothing is lost today, but the next edit to one copy will be "
            "silently ignored, and the catalog pipeline's yamllint (key-duplicates) refuses it. Remove "
            "the repeated key.")
    return Problem(
        "yaml-duplicate-key", line, col,
        f"the key '{clip(text_key)}' is repeated with a different value (first at line {first})",
        detail="YAML loaders silently keep only the last one, so the first is lost, and the catalog "
        "pipeline's yamllint (key-duplicates) fails the pull request. Remove or merge one of them.")


def _no_anchor(line: int, col: int, anchor: str) -> Problem:
    return Problem(
        "yaml-syntax", line, col,
        f"YAML syntax error: the alias '*{clip(anchor)}' refers to no anchor defined before it",
        detail="An anchor cannot refer to itself, and nothing in this file can be read until it is fixed. "
        f"Define '&{clip(anchor)}' earlier, or write the value out.")


def _alias_bomb(line: int, col: int, limit: int) -> Problem:
    return Problem(
        "yaml-limits", line, col,
        f"aliases here expand to more than {limit:,} nodes (an 'alias bomb')",
        detail="olm-check refuses the file, as the Kubernetes API server refuses excessive aliasing. "
        "Write the values out instead of repeating anchors.")


_TAG_ESCAPE = re.compile(r"!\S*?%[0-9A-Fa-f]{2}\S*")


def _bad_tag_escape(text: str) -> tuple[int, int]:
    """Where the first tag whose %-escapes are not UTF-8 starts ((1, 1) when not found)."""
    for m in _TAG_ESCAPE.finditer(text):
        try:
            unquote_to_bytes(m.group()).decode("utf-8")
        except UnicodeDecodeError:
            return _line_col(text, m.start())
    return 1, 1


def _bad_merge(line: int, col: int, kind: Optional[str]) -> Problem:
    what = {"scalar": "a single value", "sequence": "a list, or an alias, that is not a mapping"}.get(kind or "", "something other than a mapping")
    return Problem(
        "yaml-syntax", line, col, f"the merge key '<<' is given {what}, not a mapping", fatal=False,
        detail=f"A merge takes a mapping, a list of mappings or an alias to one. {_DECODER} (\"map merge requires map "
        "or sequence of maps as the value\"), so opm and OLM never see this object. Merge an anchored mapping "
        "(<<: *defaults) or write the keys out; quote '\"<<\"' if it is meant as a key.")


def _collection_key(line: int, col: int, kind: str) -> Problem:
    what = "a mapping" if kind == "mapping" else "a list"
    return Problem(
        "yaml-syntax", line, col, f"this mapping key is {what} (a complex '? ' key), not a string", fatal=False,
        detail=f"Kubernetes turns YAML into JSON, whose keys are strings, and {_DECODER} (\"invalid map key\"). "
        "Write the key as a string.")


def _null_key(line: int, col: int) -> Problem:
    return Problem(
        "yaml-syntax", line, col, "this mapping key is null (empty, '~' or 'null')", fatal=False,
        detail=f"JSON keys are strings, and {_DECODER} (\"unsupported map key of type: <nil>\"). Name the key, or "
        "quote it (\"null\") if that text is meant.")


def _too_deep(line: int, col: int, depth: int) -> Problem:
    fix = ("raise limits.max_depth in .olm-check.yaml if it is genuine" if depth < _LIBYAML_MAX_NEST
           else "libyaml, the YAML parser, reads no deeper")
    return Problem(
        "yaml-limits", line, col, f"the file nests deeper than {depth} levels here; olm-check stops reading it",
        severity="warning",
        detail=f"olm-check protects itself (no real manifest nests this deep), so nothing in the file is checked. "
        f"Flatten the structure, or {fix}.")


def _merge(target: Mapping, source: Node) -> None:
    """YAML merge key ``<<``: copy keys the mapping does not set itself."""
    sources = source.items if isinstance(source, Sequence) else [source]
    for src in sources:
        if isinstance(src, Mapping):
            for k, v in src.items():
                kv = k.value if isinstance(k, Scalar) else None
                if kv is not None and kv not in target:
                    target.add(k, v)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    pos = max(0, min(pos, len(text)))
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def decode(data: bytes) -> tuple[Optional[str], Optional[Problem]]:
    """Bytes of a YAML file to text, or the reason it is refused (binary, UTF-16/32, not UTF-8)."""
    for bom, enc in ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                     (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16")):
        if data.startswith(bom):
            return None, Problem(
                "yaml-limits", 1, 1, f"the file is encoded as {enc} (it starts with a {enc} byte order mark), not UTF-8",
                severity="warning",
                detail="olm-check reads only UTF-8, so nothing in it is checked, and Kubernetes tooling expects UTF-8. "
                "Re-save the file as UTF-8.")
    if b"\x00" in data[:8192]:
        return None, Problem("yaml-limits", 1, 1, "this is a binary file, not YAML text",
                             detail="opm and OLM cannot decode it, and olm-check does not read it. Remove it from the "
                             "bundle or replace it with the YAML it should be.")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        head = data[: e.start]
        line = head.count(b"\n") + 1
        col = e.start - (head.rfind(b"\n") + 1) + 1
        return None, Problem(
            "yaml-limits", line, col, f"the file is not valid UTF-8 (byte 0x{data[e.start]:02x} at this position)",
            detail="Kubernetes and OLM read manifests as UTF-8 and refuse the file. Re-save it as UTF-8.")


def _accelerator():
    """The C accelerator (``checker._cnodes``) set up with this module's classes and helpers, or
    None when it is not built (no compiler at install time) or cannot be set up."""
    try:
        from . import _cnodes
    except ImportError:
        return None
    try:
        _cnodes.setup(
            Scalar=Scalar, Mapping=Mapping, Sequence=Sequence, Skipped=Skipped,
            plain_cache=_plain_cache, plain_cache_max=_PLAIN_CACHE_MAX, resolve_plain=resolve_plain,
            construct=_construct, resolver_first=frozenset(k for k in _RESOLVERS if k is not None),
            wildcard=bool(_WILDCARD), dup_key=_dup_key, bad_merge=_bad_merge, collection_key=_collection_key,
            null_key=_null_key, no_anchor=_no_anchor, alias_bomb=_alias_bomb)
    except (TypeError, RuntimeError):  # node classes it cannot fill: the pure path
        return None
    return _cnodes


_cnodes = _accelerator()
# OLM_CHECK_PURE_YAML=1: the pure path even where the accelerator is built (tests, comparisons)
ACCELERATED = _cnodes is not None and os.environ.get("OLM_CHECK_PURE_YAML", "") in ("", "0")


def parser_description() -> str:
    """Which YAML parser runs, for ``olm-check --version``."""
    if ACCELERATED:
        return f"yaml: C accelerator (checker._cnodes, libyaml {_cnodes.libyaml_version()} vendored)"
    why = "turned off by OLM_CHECK_PURE_YAML" if _cnodes is not None else "accelerator not built"
    lib = "libyaml via PyYAML" if C_LOADER else "PyYAML's pure-Python parser"
    return f"yaml: {lib} ({why})"
