"""One-line fixes: replace a scalar's or a key's source text on its line."""
from __future__ import annotations

import json
from typing import Any, Optional

from ...finding import Fix
from ...model import SourceFile
from ...nodes import Node, Scalar
from .sources import scalar_positions


def value_span(sf: SourceFile, node: Optional[Node]) -> Optional[tuple[int, int]]:
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


def fix_value(sf: Any, node: Optional[Node], new_source: str, description: str) -> Optional[Fix]:
    """Replace a single-line scalar's source text (``new_source`` as it should be written,
    quotes included) on its line; None for block scalars, a scalar that spans lines, or a
    file given only as a display path (no text to edit)."""
    if not isinstance(sf, SourceFile) or not isinstance(node, Scalar):
        return None  # (value_span also refuses a node that is not a scalar)
    span = value_span(sf, node)
    if span is None:
        return None
    line = sf.line_text(node.line)
    return Fix(node.line, line[:span[0]] + new_source + line[span[1]:], description)


def fix_key(sf: SourceFile, key: Optional[Node], new_key: str, description: str) -> Optional[Fix]:
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
