"""File-based catalog blobs as rules read them: YAML nodes or JSON values alike, with positions."""
from __future__ import annotations

from typing import Any

from ...nodes import Mapping, Scalar, Sequence


class Blob:
    """Uniform access to a YAML (nodes) or JSON (dict) blob, with positions."""

    def __init__(self, blob: Any) -> None:
        self.b = blob
        self.yaml = isinstance(blob.root, Mapping)

    def node(self, *path: Any) -> Any:
        n = self.b.root
        for p in path:
            if isinstance(n, Mapping):
                n = n.get(p)
            elif isinstance(n, dict):
                n = n.get(p)
            elif isinstance(n, (Sequence, list)) and isinstance(p, int):
                n = n[p] if p < len(n) else None
            else:
                return None
        return n


def val(n: Any) -> Any:
    if isinstance(n, Scalar):
        return n.value
    return n


def items(n: Any) -> Any:
    if isinstance(n, Sequence):
        return list(n.items)
    if isinstance(n, list):
        return n
    return None


def get(n: Any, key: str) -> Any:
    if isinstance(n, (Mapping, dict)):
        return n.get(key)
    return None
