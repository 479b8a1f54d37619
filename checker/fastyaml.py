"""A fast path for files whose bulk no rule reads (CRD ``openAPIV3Schema`` bodies, a CSV's
UI descriptors: ``load.SKIP_KEYS``).

``yamlload.parse`` already skips building nodes for ``skip_keys`` subtrees, but libyaml still
hands every event of them to Python, and that is most of a catalog's parsing time. Here:

1. the block-style values of skip keys are found in the text (a key alone on its line, the
   value the deeper-indented lines below it, or the ``- `` items at the key's own
   indentation, as Go's YAML writers lay lists out) and blanked out, line for line, so every
   position in the rest of the file stays the same;
2. the rest is parsed by ``yamlload.parse`` as usual, and each blanked value becomes the
   ``Skipped`` node the full parse would have made;
3. each blanked value is checked on its own by rapidyaml (C++, ~10x libyaml's speed) for what
   ``yamlload.parse`` would have reported inside it: syntax errors, repeated keys (through
   rapidyaml's JSON, with a ``json`` hook) and nesting depth (the JSON decoder's depth,
   bounded through the recursion limit, plus the depth at which the value sits) and, where
   the text may hold one, anchors, aliases or tags (rapidyaml's tree marks them); the rest
   of the text is checked for anything that may start an anchor, alias or tag. A
   catalog repeats the same schema in bundle after bundle (1.8 GB of CRD files in
   community-operators-prod hold 0.57 GB of distinct schemas), so each distinct value is
   checked once per process: its verdict is remembered under its SHA-256 and the depth
   room it had.

Whenever any step is not sure -- rapidyaml refuses the file or finds a repeated key, the text
has anything that may be an anchor, alias or tag, the layout is not the plain block form,
the rest of the file has any problem, a blanked value does not come back as expected -- the
file is parsed by ``yamlload.parse`` in full, which is the reference: the fast path gives the
same documents and problems or is not taken (tests/test_scale.py and scripts/benchmark.py
--verify compare them). Without rapidyaml installed the fast path is simply off.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections import Counter
from typing import Optional

from .nodes import Skipped
from .yamlload import Limits, parse

import importlib.util

# rapidyaml is imported on first use (a single small bundle never needs it)
ENABLED = importlib.util.find_spec("ryml") is not None and os.environ.get("OLM_CHECK_FAST_YAML", "1") != "0"
_ryml = None
STATS: Counter = Counter()  # outcome -> files (for the benchmark)

_END_RE_CACHE: dict = {}
_NODE_START = frozenset(":-[{,?\n")
_NOT_NAME = frozenset(" \t\r\n,[]{}")
_MAPPING_LINE = re.compile(r"[^\s#\-\[\]{}|>\"'!&*%@`?,][^\n#]*?:(?:[ \t]|\r?$|\n)")
_devnull: Optional[int] = None
# what rapidyaml's JSON does not tell and ``yamlload.parse`` reports (Kubernetes' decoder refuses
# them): a merge key, a complex ``?`` key, a null key; a value that may hold one is parsed in full
_KEY_HAZARD = re.compile(r"<<[ \t]*:|(?:^|\n)[ \t]*(?:- +)*\?(?:[ \t]|\r?$|\n)|[{,\[][ \t]*\?[ \t]"
                         r"|(?:^|[\n{,])[ \t]*(?:- +)*(?:~|null|Null|NULL)[ \t]*:(?:[ \t]|\r?$|\n)")


def _key_positions(text: str, keys) -> list:
    """Sorted (start, end) of every occurrence of the keys' names. ``str.find`` per key: a
    regular expression alternating several names cannot skip ahead and scanned the 1.8 GB of
    a catalog's CRD files four times slower."""
    out = []
    for k in keys:
        i = text.find(k)
        while i >= 0:
            out.append((i, i + len(k)))
            i = text.find(k, i + len(k))
    out.sort()
    return out


def _end_re(col: int):
    """The first later line starting at or left of ``col`` (not blank, not a comment)."""
    r = _END_RE_CACHE.get(col)
    if r is None:
        r = _END_RE_CACHE[col] = re.compile(r"\n {0,%d}+[^ \r\n#]" % col)  # possessive: no backtracking
    return r


def _seq_end_re(col: int):
    """For a sequence written at its key's own indentation (``key:`` then ``- item`` lines at
    ``col``, as Go's YAML writers lay lists out): the first later line left of ``col``, or at
    ``col`` and not an item."""
    r = _END_RE_CACHE.get(-col - 1)
    if r is None:
        left = r"\n {0,%d}+[^ \r\n#]" % (col - 1) if col else r"(?!)"
        r = _END_RE_CACHE[-col - 1] = re.compile(left + r"|\n {%d}(?!-(?: |\r?\n))[^ \r\n#]" % col)
    return r


def _indentless(text: str, le: int, col: int) -> bool:
    """Whether the first line after ``le`` holding something (not blank, not a comment) is a
    sequence item at exactly ``col``."""
    j = le + 1
    while j < len(text):
        k = text.find("\n", j)
        k = len(text) if k < 0 else k
        line = text[j:k].rstrip("\r")
        body = line.lstrip(" ")
        if body and not body.startswith("#"):
            return len(line) - len(body) == col and (body.startswith("- ") or body == "-")
        j = k + 1
    return False


def _node_props(text: str) -> bool:
    """True when ``&``, ``*`` or ``!`` may start an anchor, alias or tag somewhere: followed
    by a name character and preceded (spaces aside) by a place where a node can start --
    after ``:``, ``-``, ``,``, ``[``, ``{``, ``?``, or first on a line when the line before
    leaves a value open (ends with one of those) or the line holds a ``:`` (a key). Text
    such as a description's continuation line starting with ``*bold*`` or ``!=`` is not."""
    for ch in "&*!":
        i = text.find(ch)
        while i >= 0:
            nxt = text[i + 1:i + 2]
            if nxt and nxt not in _NOT_NAME:
                j = i - 1
                while j >= 0 and text[j] in " \t":
                    j -= 1
                if j < 0:
                    return True
                c = text[j]
                if c == "\n":
                    if _line_start_node(text, i, j):
                        return True
                elif c in ",[{":
                    return True
                elif c in ":-?" and j < i - 1 and (c == ":" or j == 0 or text[j - 1] in " \t\n"):
                    return True  # an indicator: followed by a space (and "-"/"?" after one)
            i = text.find(ch, i + 1)
    return False


def _line_start_node(text: str, i: int, nl: int) -> bool:
    """Whether the token at ``i``, first on its line (``nl``: the newline before it), may be
    a node: the line has a ``:`` after it, or the previous non-blank, non-comment line ends
    with a character after which a node starts."""
    end = text.find("\n", i)
    if ":" in text[i:end if end >= 0 else len(text)]:
        return True
    k = nl
    while k > 0:
        start = text.rfind("\n", 0, k) + 1
        line = text[start:k].rstrip(" \t\r")
        k = start - 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        return line[-1] in ":-,[{?|>"
    return True


def _blank(text: str, keys):
    """(text with the skip keys' block values blanked, {key line: Skipped}, {key line:
    (start, end) of the value's text}) or None when there is nothing to blank or the layout
    is not the plain block form."""
    parts, pos, holders, blocks = [], 0, {}, {}
    nl_at, nl_count = 0, 0  # newlines counted in text[:nl_at]

    def line_of(idx: int) -> int:
        nonlocal nl_at, nl_count
        nl_count += text.count("\n", nl_at, idx)
        nl_at = idx
        return nl_count + 1

    for i, key_end in _key_positions(text, keys):
        if i < pos:
            continue  # inside a value already blanked
        ls = text.rfind("\n", 0, i) + 1
        le = text.find("\n", i)
        if le < 0:
            break
        prefix = text[ls:i]
        if prefix.replace("- ", "  ").strip(" "):
            continue  # not a key at the start of its line (or after "- ")
        rest = text[key_end:le].rstrip("\r")
        if not rest.startswith(":"):
            continue
        after = rest[1:].strip(" \t")
        if after and not (after.startswith("#") and rest[1:2] in (" ", "\t")):
            continue
        col = i - ls
        em = (_seq_end_re(col) if _indentless(text, le, col) else _end_re(col)).search(text, le)
        end = em.start() if em else len(text)
        # the first line of the value: its position and shape, as libyaml would report them
        j = le + 1
        first = None
        while j < end:
            k = text.find("\n", j)
            k = end if k < 0 or k > end else k
            line = text[j:k]
            stripped = line.lstrip(" ")
            if stripped.strip() and not stripped.startswith("#"):
                first = (j, line, len(line) - len(stripped))
                break
            j = k + 1
        if first is None:
            continue  # an empty value: nothing to blank
        j, line, ind = first
        body = line[ind:]
        if body.startswith("- ") or body.rstrip("\r") == "-":
            shape = "sequence"
        elif _MAPPING_LINE.match(body + "\n"):
            shape = "mapping"
        else:
            return None
        keyline = line_of(i)
        lineno = line_of(j)
        parts.append(text[pos:le])
        parts.append("\n" * text.count("\n", le, end))
        pos = end
        holders[keyline] = Skipped(lineno, ind + 1, shape)
        blocks[keyline] = (le + 1, end)
    if not holders:
        return None
    parts.append(text[pos:])
    return "".join(parts), holders, blocks


def _pairs_hook(pairs):
    if len(pairs) > 1 and len(dict(pairs)) != len(pairs):  # dict(): C; a set of keys: a Python loop
        raise KeyError("repeated key")
    return None


# ---------------------------------------------------------------------------------------
# Where rapidyaml and libyaml part: texts rapidyaml reads and libyaml refuses, or reads
# otherwise. Used by ``_value_clean`` (a blanked value that may be one is parsed in full) and by
# alm-examples-schema's lazy view of schema texts (PyYAML reads those).

# in the YAML text's UTF-8: a character outside PyYAML's printable set (PyYAML refuses the
# text: an ASCII control character or DEL, a C1 control, U+FFFE or U+FFFF; a surrogate has no
# UTF-8 but the encoder's surrogatepass bytes), or NEL, LS and PS (U+0085, U+2028, U+2029), which PyYAML reads as line breaks,
# rapidyaml not. Bytes that _PRINTABLE_BYTES does not hold are ASCII ones outside PyYAML's set.
# (A collection as a key, ? [a] or {a: 1}: b, which PyYAML cannot make a dictionary key of,
# rapidyaml refuses too.)
_PRINTABLE_BYTES = bytes([9, 10, 13, *range(32, 127), *range(128, 256)])
_UNPRINTABLE_UTF8 = re.compile(rb"\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9]|\xef\xbf[\xbe\xbf]|\xed[\xa0-\xbf]")


def has_unprintable(data: bytes) -> bool:
    """Whether YAML text's UTF-8 (surrogatepass) holds a character outside PyYAML's printable
    set, or NEL, LS or PS: libyaml refuses the text or reads a line break where rapidyaml does
    not."""
    return bool(data.translate(None, _PRINTABLE_BYTES)) or (not data.isascii() and bool(_UNPRINTABLE_UTF8.search(data)))
# a ':' before a tab or a flow indicator, or after a space, a line break, a flow indicator or
# another ':' (one pass over the text's colons; ``odd_colons`` looks at each)
_ODD_COLON = re.compile(r":(?:[\t,?\[\]{}]|(?<=[ \t\n\[{,:]:))")
_FLOW_SCAN_MAX = 20_000


def starts_scalar(text: str, i: int) -> bool:
    """Whether a plain scalar may start at ``i``: first on its line (spaces and '- ' aside), or
    after an indicator (':', '?', '-' and a space; '[', '{', ',')."""
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    if j < 0 or text[j] == "\n":
        return True
    c = text[j]
    return c in "[{," or (c in ":?-" and j < i - 1)


def _block_start(text: str, i: int) -> bool:
    """Whether a block node may start at ``i``: first on its line (spaces and '- ' aside), or
    after ': ', '- ' or '? '."""
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] == "\n" or (text[j] in ":?-" and j < i - 1)


def _flow_start(text: str, i: int) -> bool:
    """Whether a flow collection may open at ``i``: after ': ', '- ' or '? ', or first on its
    line (spaces and '- ' aside) below a line ending with ':', '-', '?', ',', '[' or '{' (a
    line below anything else goes on a scalar)."""
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    if j >= 0 and text[j] != "\n":
        return text[j] in ":?-" and j < i - 1
    while j > 0:
        start = text.rfind("\n", 0, j) + 1
        line = text[start:j].rstrip(" \t\r")
        j = start - 1
        if line.strip() and not line.lstrip().startswith("#"):
            return line[-1] in ":-?,[{"
    return True


def _flow_odd(text: str) -> bool:  # noqa: C901
    """Whether a flow collection (``_flow_start``) holds, outside quotes, a plain scalar's ':'
    right before ',', '?', '[', ']', '{' or '}', or a ':' where a scalar starts (libyaml:
    "found unexpected ':'"); True too for a collection not closed within _FLOW_SCAN_MAX
    characters (a superset)."""
    starts = []
    for ch in "[{":  # (str.find: a regular expression's character class scans several times slower)
        i = text.find(ch)
        while i >= 0:
            if text[i - 1:i] in (" ", "\t", "\n", "") and _flow_start(text, i):
                starts.append(i)
            i = text.find(ch, i + 1)
    starts.sort()
    done = 0
    n = len(text)
    for i in starts:
        if i < done:
            continue
        depth, j = 0, i
        while j < n:
            c = text[j]
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    break
            elif c == '"' or c == "'":
                j = _quote_end(text, j)
            elif c == ":":
                if text[j + 1:j + 2] in (",", "?", "[", "]", "{", "}") and text[j - 1] not in "\"'":
                    return True  # (after a quoted key, ':' is the value indicator)
                k = j - 1
                while k > 0 and text[k] in " \t\r\n":
                    k -= 1
                if text[k] in "[{,:":
                    return True
            elif c == "#" and text[j - 1] in " \t\n":
                j = text.find("\n", j)
                j = n if j < 0 else j
            if j - i > _FLOW_SCAN_MAX:
                return True
            j += 1
        done = j
    return False


def _quote_end(text: str, j: int) -> int:
    """The offset of the quote closing the one at ``j`` (the text's end when none)."""
    q = text[j]
    k = j + 1
    while True:
        k = text.find(q, k)
        if k < 0:
            return len(text)
        if q == "'":
            if text[k + 1:k + 2] == "'":
                k += 2
                continue
            return k
        b = k - 1
        while text[b] == "\\":
            b -= 1
        if (k - 1 - b) % 2 == 0:
            return k
        k += 1


def odd_colons(text: str) -> Optional[str]:
    """"pyyaml" when the text may hold a tab after a key's colon, or in a flow collection a plain
    scalar's ':' before ',', '?', '[', ']', '{' or '}' or a ':' opening a scalar (``_flow_odd``);
    else "bare" when a ':' may stand alone where a block node starts ("- :", "k:\n  :": libyaml
    refuses an empty plain key, rapidyaml reads one, KEYNIL, which ``_lazy_schema`` looks for in
    the tree); else None. Supersets."""
    flow = bare = False
    for m in _ODD_COLON.finditer(text):
        i = m.start()
        nxt = text[i + 1:i + 2]
        if nxt == "\t":
            return "pyyaml"
        if not flow:
            k = i - 1
            while k > 0 and text[k] in " \t\r\n":
                k -= 1
            flow = (nxt in (",", "?", "[", "]", "{", "}") and text[i - 1] not in "\"'") or text[k] in "[{,:"
            if flow and _flow_odd(text):
                return "pyyaml"
        if not bare and nxt in (" ", "\r", "\n", "") and text[i - 1] in " \t\n":
            bare = _block_start(text, i)
    return "bare" if bare else None


# verdicts on blanked values already checked: (SHA-256 of the value's text, depth room) ->
# 'ok' or why not. 32 bytes a value; community-operators-prod has ~25,000 distinct schemas.
_VERDICTS: dict = {}
_MAX_VERDICTS = 200_000


def _value_clean(text: str, room: int, props: bool) -> str:
    """'ok' when rapidyaml reads ``text`` (a blanked value, on its own) with no repeated key and
    nothing ``_KEY_HAZARD`` matches,
    nested at most ``room`` levels deep and, when ``props`` (the text may hold an anchor,
    alias or tag: ``_node_props``), with none in its tree; else why not. Remembered per
    distinct text (``props`` follows from the text)."""
    if room < 4:
        return "deep"
    data = text.encode("utf-8")
    key = (hashlib.sha256(data).digest(), room)
    why = _VERDICTS.get(key)
    if why is None:
        if _KEY_HAZARD.search(text):
            why = "key-hazard"
        elif has_unprintable(data) or odd_colons(text) is not None:
            why = "libyaml-differs"  # (a "bare" ':' too: rapidyaml reads an empty key, libyaml refuses it)
        else:
            why = _ryml_clean(data, room, props)
        if len(_VERDICTS) >= _MAX_VERDICTS:
            _VERDICTS.clear()
        _VERDICTS[key] = why
        STATS["values-checked"] += 1
    else:
        STATS["values-remembered"] += 1
    return why


def _props_mask() -> int:
    return int(_ryml.KEYANCH) | int(_ryml.VALANCH) | int(_ryml.KEYREF) | int(_ryml.VALREF) | int(_ryml.KEYTAG) | int(_ryml.VALTAG)


def ryml_tree(data: bytes, props: bool) -> tuple:
    """``(tree, "ok")``: YAML ``data`` parsed by rapidyaml (``ryml.Tree``, its text copied into the
    tree's arena), or ``(None, why)``: "ryml-refused" (no rapidyaml, or it refuses the text),
    "anchor-alias-tag" (with ``props``: the tree holds an anchor, alias or tag, which libyaml
    must decide). rapidyaml's own error messages are kept off stderr."""
    global _devnull, _ryml, ENABLED
    if _ryml is None:
        try:
            import ryml as _ryml
        except Exception:  # noqa: BLE001 - a broken install: no fast path
            ENABLED = False
            return None, "ryml-refused"
    if _devnull is None:
        _devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(_devnull, 2)  # rapidyaml prints its parse errors on stderr
    try:
        tree = _ryml.parse_in_arena(data)
    except Exception:  # noqa: BLE001 - rapidyaml refuses it: libyaml decides
        return None, "ryml-refused"
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    if props:
        # text such as a CEL rule's continuation line "!has(self.x)" looks like a tag to
        # the text scan; the tree tells: any anchor, alias or tag, and libyaml decides
        mask, kind = _props_mask(), tree.type
        if any(kind(i) & mask for i in range(tree.size())):
            return None, "anchor-alias-tag"
    return tree, "ok"


def ryml_json(data: bytes, props: bool) -> tuple:
    """``(json_text, "ok")`` for YAML ``data`` parsed by rapidyaml, or ``(None, why)``: why
    ``ryml_tree`` gave no tree, or "json" (no JSON out)."""
    tree, why = ryml_tree(data, props)
    if tree is None:
        return None, why
    try:
        # into a buffer of ours: emit_json_malloc's buffer is never freed (a leak of the
        # JSON's size per file, gigabytes over a catalog)
        buf = bytearray(2 * len(data) + 4096)
        failed, size = _ryml.emit_json_to_substr(tree, tree.root_id(), buf)
        if failed:
            buf = bytearray(size)
            failed, size = _ryml.emit_json_to_substr(tree, tree.root_id(), buf)
            if failed:
                return None, "json"
        del tree
    except Exception:  # noqa: BLE001 - rapidyaml cannot write it: libyaml decides
        return None, "ryml-refused"
    try:
        return bytes(memoryview(buf)[:size]).decode("utf-8"), "ok"
    except UnicodeDecodeError:
        return None, "json"


def _ryml_clean(data: bytes, room: int, props: bool) -> str:
    js, why = ryml_json(data, props)
    if js is None:
        return why
    # nesting: the JSON decoder counts its depth against the recursion limit, so a limit
    # of (here + room) makes anything nested deeper than ``room`` a RecursionError
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + room)
    try:
        json.loads(js, object_pairs_hook=_pairs_hook)
    except KeyError:
        return "repeated-key"
    except RecursionError:
        return "deep"
    except ValueError:
        return "json"
    finally:
        sys.setrecursionlimit(old)
    return "ok"


def _stack_depth() -> int:
    f, n = sys._getframe(), 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


def parse_fast(text: str, limits: Optional[Limits], skip_keys: frozenset, info: Optional[dict] = None) -> Optional[tuple]:
    """(documents, problems) exactly as ``yamlload.parse(text, limits, skip_keys)`` would
    return them, or None when the fast path does not apply (then call ``parse``). ``info``
    gets ``kept``: how much of the text was built into nodes (not blanked)."""
    if not ENABLED or not skip_keys:
        return None
    present = [k for k in skip_keys if k in text]  # a CRD holds no descriptors, a CSV no schema:
    if not present:  # their keys are not searched for again, through the whole text, below
        return None
    limits = limits or Limits()
    blanked = _blank(text, present)
    if blanked is None:
        STATS["layout"] += 1
        return None
    cut, holders, blocks = blanked
    if _node_props(cut):
        STATS["anchor-alias-tag"] += 1
        return None
    depths: dict = {}
    docs, problems = parse(cut, limits, skip_keys, placeholders=holders, depths=depths)
    if problems or holders:
        STATS["recheck"] += 1
        return None
    for keyline, (start, end) in blocks.items():
        # the value's collections open at depth depths[keyline] (+1 for the value itself);
        # 2 levels of slack, so that the full parse decides anything near the limit
        value = text[start:end]
        why = _value_clean(value, limits.max_depth - depths.get(keyline, limits.max_depth) - 2, _node_props(value))
        if why != "ok":
            STATS[why] += 1
            return None
    STATS["fast"] += 1
    if info is not None:
        info["kept"] = len(text) - sum(end - start for start, end in blocks.values())
    return docs, problems
