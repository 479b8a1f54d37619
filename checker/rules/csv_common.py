"""Shared helpers of the ClusterServiceVersion content rules (csv_metadata, csv_annotations).

No rules here: reading the data table, finding the CSV, typed lookups on positioned nodes,
positions inside string values (so an error inside JSON held in a YAML string points at
the real line), and one-line fixes.
"""
from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from itertools import repeat
from typing import Any, Optional

import yaml

from ..finding import Fix, clip as _clip
from ..model import REGISTRY_V1, Bundle, Manifest, SourceFile
from ..nodes import Mapping, Node, Scalar, Sequence

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "csv.yaml")


@lru_cache(maxsize=1)
def data() -> dict:
    with open(DATA, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def the_csv(bundle: Bundle) -> Optional[Manifest]:
    """The bundle's one CSV when it is a registry+v1 bundle whose CSV is a mapping
    (csv-missing and manifest-invalid report the other cases)."""
    if bundle.mediatype not in (REGISTRY_V1, None):
        return None
    c = bundle.csv
    if c is None or not isinstance(c.root, Mapping):
        return None
    return c


def csv_annotation(bundle: Bundle, key: str) -> tuple:
    """(the CSV, the node of its annotation ``key``): (None, None) without a CSV the rules
    read (``the_csv``), (csv, None) when the annotation is absent."""
    csv = the_csv(bundle)
    if csv is None:
        return None, None
    ann = csv.annotations()
    return csv, (ann.get(key) if ann is not None else None)


def mapping(node: Any) -> Optional[Mapping]:
    return node if isinstance(node, Mapping) else None


def seq(node: Any) -> Optional[Sequence]:
    return node if isinstance(node, Sequence) else None


def text(node: Any) -> Optional[str]:
    """The string value of a scalar node (None for other types and non-strings)."""
    if isinstance(node, Scalar) and isinstance(node.value, str):
        return node.value
    return None


def is_blank(node: Any) -> bool:
    """Absent, null, an empty string, an empty list or mapping: "not there"."""
    if node is None:
        return True
    if isinstance(node, Scalar):
        return node.value is None or (isinstance(node.value, str) and not node.value.strip())
    if isinstance(node, (Mapping, Sequence)):
        return len(node) == 0
    return False


def clip(s: str, limit: int = 60) -> str:
    """``finding.clip`` with control characters escaped: CSV text is quoted with them visible."""
    return _clip(s, limit, escape=True)


def shown(node: Any, limit: int = 60) -> str:
    """A short rendering of a value for messages (no Python reprs)."""
    if isinstance(node, Scalar):
        return clip(node.raw if node.raw is not None else str(node.value), limit)
    return node.type_name() if isinstance(node, Node) else str(node)


def annotations(csv: Manifest) -> Optional[Mapping]:
    return csv.annotations()


def spec(csv: Manifest) -> Optional[Mapping]:
    return csv.spec()


# ---------------------------------------------------------------------------------------
# positions inside a scalar's text


def scalar_positions(sf: SourceFile, node: Scalar) -> Optional[list]:
    """(line, column) in the file of each character of a string scalar's value, or None
    when the text cannot be mapped exactly (the result is checked against the value)."""
    if not isinstance(node, Scalar) or not isinstance(node.value, str) or sf.text is None:
        return None
    try:
        if node.style in ("|", ">"):
            return _block_positions(sf, node)
        return _flow_positions(sf, node)
    except IndexError:
        return None


def _block_positions(sf: SourceFile, node: Scalar) -> Optional[list]:
    value = node.value
    ln = node.line + 1
    total = len(sf._lines())
    indent = None
    rows = []  # (line number, content text) of the scalar's lines
    while ln <= total:
        t = sf.line_text(ln)
        if t.strip() == "":
            rows.append((ln, None))
            ln += 1
            continue
        ind = len(t) - len(t.lstrip(" "))
        if indent is None:
            head = sf.line_text(node.line)
            if ind <= len(head) - len(head.lstrip(" ")):
                break  # the next key: the scalar is empty
            indent = ind
        if ind < indent:
            break
        rows.append((ln, t))
        ln += 1
    if indent is None:
        return [] if node.value == "" else None
    out_chars = []
    pos = []
    if node.style == "|":
        for ln, t in rows:
            if t is not None:
                body = t[indent:]
                out_chars.append(body)  # joined below: one position per character
                pos.extend(zip(repeat(ln), range(indent + 1, indent + 1 + len(body))))
                out_chars.append("\n")
                pos.append((ln, len(t) + 1))
            else:
                out_chars.append("\n")
                pos.append((ln, 1))
    else:  # folded, without more-indented lines
        prev_text = False
        pending_breaks = 0
        for ln, t in rows:
            if t is None:
                pending_breaks += 1
                continue
            body = t[indent:]
            if body[:1] in (" ", "\t"):
                return None
            if prev_text:
                if pending_breaks:
                    for _ in range(pending_breaks):
                        out_chars.append("\n")
                        pos.append((ln, 1))
                else:
                    out_chars.append(" ")
                    pos.append((ln, indent))
            pending_breaks = 0
            out_chars.append(body)
            pos.extend(zip(repeat(ln), range(indent + 1, indent + 1 + len(body))))
            prev_text = True
        out_chars.append("\n")
        pos.append((rows[-1][0] if rows else node.line, 1))
    s = "".join(out_chars)
    n = len(value)
    if s[:n] != value:
        if s.rstrip("\n") == value.rstrip("\n"):
            n = min(n, len(s))
        else:
            return None
    return pos[:n]


_ESC_LEN = {"x": 2, "u": 4, "U": 8}
_ESC = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
        "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}


def _flow_positions(sf: SourceFile, node: Scalar) -> Optional[list]:
    value = node.value
    style = node.style
    ln, c = node.line, node.col - 1  # c: 0-based index into the line
    line = sf.line_text(ln)
    if style in ("'", '"'):
        if line[c:c + 1] != style:
            return None
        c += 1
    out = []
    pos = []
    n = len(value)
    while True:
        if style is None and len(out) >= n:
            break
        if c >= len(line):
            # a line break inside the scalar: trailing blanks dropped, then a space or
            # one newline per empty line
            while out and out[-1] in (" ", "\t") and pos[-1][0] == ln:
                out.pop()
                pos.pop()
            eol = (ln, len(line) + 1)
            ln += 1
            if ln > len(sf._lines()):
                return None
            line = sf.line_text(ln)
            empties = 0
            while line.strip() == "":
                empties += 1
                ln += 1
                if ln > len(sf._lines()):
                    return None
                line = sf.line_text(ln)
            if empties:
                for _ in range(empties):
                    out.append("\n")
                    pos.append(eol)
            else:
                out.append(" ")
                pos.append(eol)
            c = len(line) - len(line.lstrip(" \t"))
            continue
        ch = line[c]
        if style == "'":
            if ch == "'":
                if line[c + 1:c + 2] == "'":
                    out.append("'")
                    pos.append((ln, c + 1))
                    c += 2
                    continue
                break
        elif style == '"':
            if ch == '"':
                break
            if ch == "\\":
                nxt = line[c + 1:c + 2]
                if nxt == "":  # escaped line break: no space, next line's indentation dropped
                    ln += 1
                    line = sf.line_text(ln)
                    c = len(line) - len(line.lstrip(" \t"))
                    continue
                if nxt in _ESC_LEN:
                    k = _ESC_LEN[nxt]
                    try:
                        out.append(chr(int(line[c + 2:c + 2 + k], 16)))
                    except ValueError:
                        return None
                    pos.append((ln, c + 1))
                    c += 2 + k
                    continue
                if nxt in _ESC:
                    out.append(_ESC[nxt])
                    pos.append((ln, c + 1))
                    c += 2
                    continue
                return None
        out.append(ch)
        pos.append((ln, c + 1))
        c += 1
    s = "".join(out)
    if style is None:
        s = s[:n]
        pos = pos[:n]
    if s != value:
        return None
    return pos


def pos_in(sf: SourceFile, node: Scalar, index: int, positions: Optional[list] = None) -> tuple:
    """(line, column) of character ``index`` of a string scalar (the scalar's own position
    when it cannot be mapped). ``positions``: scalar_positions(sf, node), when already known."""
    p = positions if positions is not None else scalar_positions(sf, node)
    if not p:
        return node.line, node.col
    if index < len(p):
        return p[index]
    ln, col = p[-1]
    return ln, col + 1


# ---------------------------------------------------------------------------------------
# JSON held in a string annotation


class JsonProblem:
    """Invalid JSON in a string scalar: ``reason`` (the parser's words), ``where`` (the place
    inside the JSON text, or ""), ``message`` (both), ``line``/``column`` (in the file)."""

    def __init__(self, reason: str, line: int, column: int, where: str = ""):
        self.reason = reason
        self.where = where
        self.message = f"{reason} ({where})" if where else reason
        self.line = line
        self.column = column

    def at(self) -> str:
        """A sentence for a finding's detail saying where in the JSON text the error is, or ""."""
        return f"The error is at {self.where}. " if self.where else ""


def load_json(sf: SourceFile, node: Scalar) -> tuple:
    """(data, None) or (None, JsonProblem) for the JSON text of a string scalar; the
    problem's position is inside the JSON, mapped to the file."""
    s = node.value
    try:
        return _json(s), None
    except json.JSONDecodeError as e:
        ln, col = pos_in(sf, node, e.pos)
        return None, JsonProblem(e.msg, ln, col, f"line {e.lineno}, column {e.colno} of the JSON text")
    except (ValueError, RecursionError) as e:  # pragma: no cover - odd numbers, deep nesting
        return None, JsonProblem(str(e), node.line, node.col)


@lru_cache(maxsize=16)
def _json(s: str) -> Any:
    """json.loads, remembered for the last texts: an operator's releases mostly repeat their
    alm-examples (100 KB and more), and several rules read them. Read-only to callers."""
    return json.loads(s)


@lru_cache(maxsize=16)
def json_array_items(s: str) -> tuple:
    """(offset, value) of each top-level element of a JSON array text already known to be
    valid (remembered like ``_json``; read-only to callers)."""
    return tuple(_json_array_items(s))


def _json_array_items(s: str) -> list:
    dec = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")
    i = ws.match(s, 0).end()
    if s[i:i + 1] != "[":
        return []
    i = ws.match(s, i + 1).end()
    out = []
    if s[i:i + 1] == "]":
        return out
    while i < len(s):
        v, end = dec.raw_decode(s, i)
        out.append((i, v))
        i = ws.match(s, end).end()
        if s[i:i + 1] == ",":
            i = ws.match(s, i + 1).end()
            continue
        break
    return out


def json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


# ---------------------------------------------------------------------------------------
# one-line fixes


def value_span(sf: SourceFile, node: Scalar) -> Optional[tuple]:
    """(start, end) 0-based columns of a single-line scalar's source text on its line,
    quotes included; None when the scalar spans lines or cannot be located."""
    if not isinstance(node, Scalar) or node.style not in (None, "'", '"'):
        return None
    line = sf.line_text(node.line)
    start = node.col - 1
    if node.style is not None:
        # the closing quote: the first one not escaped (\" in double quotes, '' in single);
        # none on this line when the scalar goes on to the next
        q = node.style
        if line[start:start + 1] != q:
            return None
        i = start + 1
        while i < len(line):
            c = line[i]
            if q == '"' and c == "\\":
                i += 2
                continue
            if c == q:
                if q == "'" and line[i + 1:i + 2] == "'":
                    i += 2
                    continue
                return start, i + 1
            i += 1
        return None
    if isinstance(node.value, str):
        p = scalar_positions(sf, node)
        if p is None or any(ln != node.line for ln, _ in p):
            return None
        return start, (p[-1][1] if p else start)
    raw = node.raw or ""
    if line[start:start + len(raw)] != raw or not raw:
        return None
    return start, start + len(raw)


def fix_value(sf: SourceFile, node: Scalar, new_source: str, description: str) -> Optional[Fix]:
    """Replace a single-line scalar's source text (``new_source`` as it should be written,
    quotes included) on its line."""
    span = value_span(sf, node)
    if span is None:
        return None
    line = sf.line_text(node.line)
    return Fix(node.line, line[:span[0]] + new_source + line[span[1]:], description)


def fix_key(sf: SourceFile, key: Scalar, new_key: str, description: str) -> Optional[Fix]:
    if not isinstance(key, Scalar) or not isinstance(key.value, str):
        return None
    span = value_span(sf, key)
    if span is None:
        return None
    line = sf.line_text(key.line)
    q = key.style or ""
    return Fix(key.line, line[:span[0]] + q + new_key + q + line[span[1]:], description)


def dq(s: str) -> str:
    """``s`` as a YAML double-quoted scalar."""
    return json.dumps(s, ensure_ascii=False)


# ---------------------------------------------------------------------------------------
# what the CSV owns


def owned_crds(csv: Manifest) -> list:
    """(name, group, version, kind, entry node) of spec.customresourcedefinitions.owned."""
    out = []
    sp = csv.spec()
    crds = mapping(sp.get("customresourcedefinitions")) if sp is not None else None
    owned = seq(crds.get("owned")) if crds is not None else None
    for e in owned or ():
        if not isinstance(e, Mapping):
            continue
        name = e.str("name") or ""
        group = name.split(".", 1)[1] if "." in name else ""
        out.append((name, group, e.str("version") or "", e.str("kind") or "", e))
    return out


def owned_apiservices(csv: Manifest) -> list:
    """(group, version, kind, entry node) of spec.apiservicedefinitions.owned."""
    out = []
    sp = csv.spec()
    api = mapping(sp.get("apiservicedefinitions")) if sp is not None else None
    owned = seq(api.get("owned")) if api is not None else None
    for e in owned or ():
        if isinstance(e, Mapping):
            out.append((e.str("group") or "", e.str("version") or "", e.str("kind") or "", e))
    return out


DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
# what a DNS-1123 label is, for a finding's detail next to ``dns_label_problem``'s words
DNS1123_LABEL_RULE = ("a DNS-1123 label (a namespace name) consists of lower-case letters, digits and '-', starts and "
                      "ends with a letter or digit, and has at most 63 characters")


def dns_label_problem(s: str) -> Optional[str]:
    """What is wrong with ``s`` as a DNS-1123 label, in a few words ("is 70 characters long,
    more than 63"), or None; ``DNS1123_LABEL_RULE`` says what one is."""
    if len(s) > 63:
        return f"is {len(s)} characters long, more than 63"
    if not DNS1123_LABEL.fullmatch(s):
        return "is not a DNS-1123 label"
    return None


# ---------------------------------------------------------------------------------------
# What operator-sdk's operatorhub validator (operator-framework/api operatorhub.go,
# checkSpecLinks / checkSpecMaintainers, run by the community catalog CI) accepts: Go's
# net/url ParseRequestURI for link URLs and net/mail ParseAddress for maintainer e-mails.
# Ports of the Go standard library's rules, returning Go's reason or None.


_CTL = re.compile("[\x00-\x1f\x7f]")


def _ctl(s: str) -> bool:
    """Whether ``s`` holds an ASCII control character (below 0x20, or DEL)."""
    return _CTL.search(s) is not None


def _go_should_escape_host(c: str) -> bool:
    if c.isascii() and c.isalnum():
        return False
    return c not in "!$&'()*+,;=:[]<>\"-_.~"


def _go_unescape(s: str, host: bool) -> Optional[str]:
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            h = s[i + 1:i + 3]
            if len(h) < 2 or any(x not in "0123456789abcdefABCDEF" for x in h):
                return f"invalid URL escape {json.dumps(s[i:i + 3])}"
            if host and int(h[0], 16) < 8 and s[i:i + 3] != "%25":
                return f"invalid URL escape {json.dumps(s[i:i + 3])}"
            i += 3
            continue
        if host and ord(c) < 0x80 and _go_should_escape_host(c):
            return f"invalid character {json.dumps(c)} in host name"
        i += 1
    return None


def _go_valid_port(p: str) -> bool:
    return p == "" or (p[0] == ":" and all("0" <= b <= "9" for b in p[1:]))


_USERINFO_OK = set("-._:~!$&'()*+,;=%@")


def go_request_uri_error(raw: str) -> Optional[str]:
    """Why Go's ``url.ParseRequestURI`` rejects ``raw`` (its message), or None when it
    accepts it: an absolute URI or an absolute path; spaces in the path are accepted,
    control characters, a bad %-escape, a bad port or a bad host character are not."""
    if _ctl(raw):
        return "net/url: invalid control character in URL"
    if raw == "":
        return "empty url"
    if raw == "*":
        return None
    scheme, rest = "", raw
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                break
            continue
        if c == ":":
            if i == 0:
                return "missing protocol scheme"
            scheme, rest = raw[:i], raw[i + 1:]
        break
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest = rest.split("?", 1)[0]
    if not rest.startswith("/"):
        if scheme:
            return None  # opaque (mailto:...)
        return "invalid URI for request"
    if scheme and rest.startswith("//"):
        authority, _, path = rest[2:].partition("/")
        rest = "/" + path if _ or path else ""
        at = authority.rfind("@")
        host = authority[at + 1:] if at >= 0 else authority
        if host.startswith("["):
            j = host.rfind("]")
            if j < 0:
                return "missing ']' in host"
            if not _go_valid_port(host[j + 1:]):
                return f"invalid port {json.dumps(host[j + 1:])} after host"
            z = host.find("%25", 0, j)
            if z >= 0:
                e = _go_unescape(host[:z], True) or _go_unescape(host[j:], True)
                if e:
                    return e
                host = ""  # the zone: "anything goes" but escapes of host-invalid bytes (rare)
        elif ":" in host:
            p = host[host.rfind(":"):]
            if not _go_valid_port(p):
                return f"invalid port {json.dumps(p)} after host"
        e = _go_unescape(host, True) if host else None
        if e:
            return e
        if at >= 0:
            ui = authority[:at]
            if any(not ((c.isascii() and c.isalnum()) or c in _USERINFO_OK) for c in ui):
                return "net/url: invalid userinfo"
            for part in ui.split(":", 1):
                e = _go_unescape(part, False)
                if e:
                    return e
    return _go_unescape(rest, False)


def _go_atext(c: str, dot: bool, permissive: bool) -> bool:
    if c == ".":
        return dot
    if c in "()[];@\\,":
        return permissive
    if c in '<>":':
        return False
    return "!" <= c <= "~" or ord(c) >= 0x80


class _Addr:
    def __init__(self, s: str):
        self.s = s

    def skip_space(self):
        self.s = self.s.lstrip(" \t")

    def atom(self, dot: bool, permissive: bool) -> tuple:
        i = 0
        while i < len(self.s) and _go_atext(self.s[i], dot, permissive):
            i += 1
        if i == 0:
            return None, "mail: invalid string"
        a, self.s = self.s[:i], self.s[i:]
        if not permissive:
            if a.startswith("."):
                return None, "mail: leading dot in atom"
            if ".." in a:
                return None, "mail: double dot in atom"
            if a.endswith("."):
                return None, "mail: trailing dot in atom"
        return a, None

    def quoted(self) -> tuple:
        i, out, esc = 1, [], False
        while True:
            if i >= len(self.s):
                return None, "mail: unclosed quoted-string"
            c = self.s[i]
            vchar = "!" <= c <= "~" or ord(c) >= 0x80
            if esc:
                if not (vchar or c in " \t"):
                    return None, f"mail: bad character in quoted-string: {json.dumps(c)}"
                out.append(c)
                esc = False
            elif (vchar and c not in '\\"') or c in " \t":
                out.append(c)
            elif c == '"':
                break
            elif c == "\\":
                esc = True
            else:
                return None, f"mail: bad character in quoted-string: {json.dumps(c)}"
            i += 1
        self.s = self.s[i + 1:]
        return "".join(out), None

    def addr_spec(self) -> Optional[str]:
        orig = self.s
        self.skip_space()
        if not self.s:
            self.s = orig
            return "mail: no addr-spec"
        if self.s[0] == '"':
            local, err = self.quoted()
            if local == "" and err is None:
                err = "mail: empty quoted string in addr-spec"
        else:
            local, err = self.atom(True, False)
        if err is None and not self.s.startswith("@"):
            err = "mail: missing @ in addr-spec"
        if err is None:
            self.s = self.s[1:]
            self.skip_space()
            if not self.s:
                err = "mail: no domain in addr-spec"
            else:
                _, err = self.atom(True, False)
        if err:
            self.s = orig
        return err

    def comment(self) -> bool:
        depth = 1
        while self.s and depth:
            if self.s[0] == "\\" and len(self.s) > 1:
                self.s = self.s[1:]
            elif self.s[0] == "(":
                depth += 1
            elif self.s[0] == ")":
                depth -= 1
            self.s = self.s[1:]
        return depth == 0

    def cfws(self) -> bool:
        self.skip_space()
        while self.s.startswith("("):
            self.s = self.s[1:]
            if not self.comment():
                return False
            self.skip_space()
        return True


def go_mail_address_error(s: str) -> Optional[str]:
    """Why Go's ``mail.ParseAddress`` rejects ``s`` (its message), or None when it accepts
    it. Go accepts a display name (``Team <team@example.com>``), a domain without a dot and
    any RFC 5322 atext (``'``, ``+``, ``{``...) in both parts."""
    p = _Addr(s)
    p.skip_space()
    if not p.s:
        return "mail: no address"
    if p.addr_spec() is None:
        p.skip_space()
        if p.s.startswith("("):
            p.s = p.s[1:]
            if not p.comment():
                return "mail: misformatted parenthetical comment"
    else:
        if not p.s.startswith("<"):
            words = 0
            while True:
                p.skip_space()
                if not p.s:
                    break
                if p.s[0] == '"':
                    w, err = p.quoted()
                else:
                    w, err = p.atom(True, True)
                if err:
                    if not words:
                        return f"mail: missing word in phrase: {err}"
                    break
                words += 1
        p.skip_space()
        if p.s.startswith(":"):
            return None  # a group; not worth modelling (Go accepts a one-address group)
        if not p.s.startswith("<"):
            return "mail: no angle-addr"
        p.s = p.s[1:]
        err = p.addr_spec()
        if err:
            return err
        if not p.s.startswith(">"):
            return "mail: unclosed angle-addr"
        p.s = p.s[1:]
    if not p.cfws():
        return "mail: misformatted parenthetical comment"
    if p.s:
        return f"mail: expected single address, got {json.dumps(p.s)}"
    return None


def examples_annotation(ann) -> tuple:
    """``(key, node)`` of the CSV's examples: `alm-examples`, or its older spelling
    `olm.examples` when only that one is there; ``("alm-examples", None)`` without either."""
    node = ann.get("alm-examples") if ann is not None else None
    if node is None and ann is not None and ann.get("olm.examples") is not None:
        return "olm.examples", ann.get("olm.examples")
    return "alm-examples", node
