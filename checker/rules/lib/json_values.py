"""JSON held in a YAML string (an annotation such as alm-examples): parsed, with the position
of a syntax error inside the string."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Optional

from ...model import SourceFile
from ...nodes import Scalar
from .sources import pos_in


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


def load_json(sf: SourceFile, node: Scalar) -> tuple[Any, Optional[JsonProblem]]:
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
def json_array_items(s: str) -> tuple[tuple[int, Any], ...]:
    """(offset, value) of each top-level element of a JSON array text already known to be
    valid (remembered like ``_json``; read-only to callers)."""
    return tuple(_json_array_items(s))


def _match_end(rx: re.Pattern[str], s: str, i: int) -> int:
    """Where ``rx``'s match at ``i`` ends (``rx`` matches the empty string: it matches at every offset)."""
    m = rx.match(s, i)
    assert m is not None
    return m.end()


def _json_array_items(s: str) -> list[tuple[int, Any]]:
    dec = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")
    i = _match_end(ws, s, 0)
    if s[i:i + 1] != "[":
        return []
    i = _match_end(ws, s, i + 1)
    out: list[tuple[int, Any]] = []
    if s[i:i + 1] == "]":
        return out
    while i < len(s):
        v, end = dec.raw_decode(s, i)
        out.append((i, v))
        i = _match_end(ws, s, end)
        if s[i:i + 1] == ",":
            i = _match_end(ws, s, i + 1)
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
