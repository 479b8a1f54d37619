"""Positions inside a scalar's source text: where character ``i`` of a string value is on
disk, through quotes, escapes and block scalars' folding, so that a problem inside a value
(JSON held in a string, a word in a description) is reported at its own line and column."""
from __future__ import annotations

from itertools import repeat
from typing import Optional

from ...model import SourceFile
from ...nodes import Scalar


def scalar_positions(sf: SourceFile, node: Scalar) -> Optional[list[tuple[int, int]]]:
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


def _block_positions(sf: SourceFile, node: Scalar) -> Optional[list[tuple[int, int]]]:
    value = node.value
    ln = node.line + 1
    total = len(sf._lines())
    indent = None
    rows: list[tuple[int, Optional[str]]] = []  # (line number, content text) of the scalar's lines
    t: Optional[str]
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
    out_chars: list[str] = []
    pos: list[tuple[int, int]] = []
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


def _flow_positions(sf: SourceFile, node: Scalar) -> Optional[list[tuple[int, int]]]:
    value = node.value
    style = node.style
    ln, c = node.line, node.col - 1  # c: 0-based index into the line
    line = sf.line_text(ln)
    if style in ("'", '"'):
        if line[c:c + 1] != style:
            return None
        c += 1
    out: list[str] = []
    pos: list[tuple[int, int]] = []
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


def pos_in(sf: SourceFile, node: Scalar, index: int, positions: Optional[list[tuple[int, int]]] = None) -> tuple[int, int]:
    """(line, column) of character ``index`` of a string scalar (the scalar's own position
    when it cannot be mapped). ``positions``: scalar_positions(sf, node), when already known."""
    p = positions if positions is not None else scalar_positions(sf, node)
    if not p:
        return node.line, node.col
    if index < len(p):
        return p[index]
    ln, col = p[-1]
    return ln, col + 1
