"""Typed reads of positioned nodes, and values as people read them in a message."""
from __future__ import annotations

from typing import Any, Optional

from ...finding import clip as _clip
from ...nodes import Mapping, Node, Scalar, Sequence, Skipped


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


def stripped(node: Any) -> Optional[str]:
    """The string value of a scalar node (stripped), None for anything else or empty."""
    if isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip():
        return node.value.strip()
    return None


def strings(node: Any) -> list[tuple[str, Scalar]]:
    """[(value, node)] for the string scalars of a list node; anything else yields nothing."""
    out: list[tuple[str, Scalar]] = []
    if isinstance(node, Sequence):
        for item in node:
            if isinstance(item, Scalar) and isinstance(item.value, str):
                out.append((item.value, item))
    return out


def where(mapping: Mapping, key: str) -> Node:
    """The node to point at for ``key`` of ``mapping``: its key when present, else the mapping."""
    k = mapping.key_node(key)
    return k if k is not None else mapping


def show(node: Any) -> str:
    """A value as people read it in a message."""
    if isinstance(node, Scalar):
        return f"'{clip(node.raw)}'" if node.raw != "" else "empty"
    return node.type_name() if node is not None else "nothing"


def lacking(node: Any, key: str) -> str:
    """How a required string field is wrong, for a message: 'no X', 'an empty X', or 'X as a list'."""
    if node is None:
        return f"no {key}"
    if isinstance(node, Scalar) and (node.value is None or (isinstance(node.value, str) and not node.value.strip())):
        return f"an empty {key}"
    return f"{key} as {node.type_name()} ({show(node)}) instead of a string" if isinstance(node, Scalar) else f"{key} as {node.type_name()} instead of a string"


def shape(node: Any) -> str:
    """"mapping", "sequence" or "scalar": what a node is, built or skipped by the loader (a
    skipped subtree knows its shape, not its contents)."""
    if isinstance(node, Skipped):
        return node.shape
    if isinstance(node, Mapping):
        return "mapping"
    if isinstance(node, Sequence):
        return "sequence"
    return "scalar"
