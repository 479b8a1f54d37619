"""Positioned YAML nodes.

Every node knows its 1-based line and column in the file it came from, so any rule can
point at the exact key or value it is talking about. Nodes are deliberately small
(``__slots__``) because a catalog holds millions of them.

``Scalar.value`` is the resolved Python value under the YAML 1.1 rules that Kubernetes'
YAML library applies to untyped data (``true``/``yes`` booleans, ints, floats, nulls);
timestamps and the YAML ``value`` tag (a bare ``=``) stay strings, as they do when the
API server turns YAML into JSON. ``Scalar.raw`` is the text as written and ``Scalar.style``
the quoting style (``None`` for plain, ``'"'``, ``"'"``, ``'|'``, ``'>'``).

``Skipped`` stands for a subtree that was checked for syntax, duplicate keys and limits but
not turned into nodes, because no rule reads it (CRD ``openAPIV3Schema`` bodies: most of the
bytes of a catalog). ``to_py`` returns ``None`` for it.
"""
from __future__ import annotations

import builtins
from typing import Any, Iterator, Optional


class Node:
    __slots__ = ("line", "col")

    kind = "node"

    def __init__(self, line: int, col: int):
        self.line = line
        self.col = col

    # Convenience accessors shared by every node type, so rules can chain lookups
    # without type checks: ``csv.get("spec").get("install")`` returns MISSING-safe None.
    def get(self, key: str, default: Any = None) -> Any:  # pragma: no cover - overridden
        return default

    def type_name(self) -> str:
        """A word for people: 'a mapping', 'a list', 'a string', ..."""
        return "a value"


class Scalar(Node):
    __slots__ = ("value", "raw", "style", "tag")
    kind = "scalar"

    def __init__(self, line: int, col: int, value: Any, raw: str, style: Optional[str], tag: str):
        self.line = line  # (not super().__init__: a million scalars a catalog)
        self.col = col
        self.value = value
        self.raw = raw
        self.style = style
        self.tag = tag

    def get(self, key: str, default: Any = None) -> Any:
        return default

    def type_name(self) -> str:
        v = self.value
        if v is None:
            return "empty (null)"
        if isinstance(v, bool):
            return "a boolean"
        if isinstance(v, int):
            return "a number"
        if isinstance(v, float):
            return "a number"
        return "a string"

    def __repr__(self) -> str:  # for debugging only; never shown to users
        return f"Scalar({self.value!r}@{self.line}:{self.col})"


class Mapping(Node):
    __slots__ = ("pairs", "_index")
    kind = "mapping"

    def __init__(self, line: int, col: int):
        self.line = line
        self.col = col
        self.pairs: list[tuple[Node, Node]] = []
        self._index: dict[Any, int] = {}

    def type_name(self) -> str:
        return "a mapping"

    def add(self, key: Node, value: Node) -> None:
        # a scalar's value is a str, int, float, bool or None: hashable
        k = key.value if key.__class__ is Scalar else id(key)
        self._index[k] = len(self.pairs)  # last one wins, like YAML loaders
        self.pairs.append((key, value))

    def get(self, key: Any, default: Any = None) -> Any:
        i = self._index.get(key)
        if i is None:
            return default
        return self.pairs[i][1]

    def key_node(self, key: Any) -> Optional[Node]:
        i = self._index.get(key)
        return None if i is None else self.pairs[i][0]

    def __contains__(self, key: Any) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self.pairs)

    def items(self) -> Iterator[tuple[Node, Node]]:
        """(key node, value node) pairs; the last of duplicate keys only (as loaders keep)."""
        for i in self._index.values():
            yield self.pairs[i]

    def keys(self) -> list[Any]:
        return list(self._index.keys())

    def str(self, key: str) -> Optional[builtins.str]:  # (``str`` in this class is this method)
        """The value at ``key`` if it is a string scalar, else None."""
        v = self.get(key)
        if isinstance(v, Scalar) and isinstance(v.value, str):
            return v.value
        return None

    def __repr__(self) -> builtins.str:
        return f"Mapping({len(self.pairs)} keys@{self.line}:{self.col})"


class Sequence(Node):
    __slots__ = ("items",)
    kind = "sequence"

    def __init__(self, line: int, col: int):
        self.line = line
        self.col = col
        self.items: list[Node] = []

    def type_name(self) -> str:
        return "a list"

    def get(self, key: Any, default: Any = None) -> Any:
        return default

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> Node:
        return self.items[i]

    def __repr__(self) -> str:
        return f"Sequence({len(self.items)} items@{self.line}:{self.col})"


class Skipped(Node):
    """A subtree that was parsed and checked but not built (no rule reads it)."""

    __slots__ = ("shape",)
    kind = "skipped"

    def __init__(self, line: int, col: int, shape: str):
        super().__init__(line, col)
        self.shape = shape  # "mapping" | "sequence" | "scalar"

    def is_map(self) -> bool:
        return self.shape == "mapping"

    def type_name(self) -> str:
        return {"mapping": "a mapping", "sequence": "a list"}.get(self.shape, "a value")

    def get(self, key: Any, default: Any = None) -> Any:
        return default


def to_py(node: Optional[Node], budget: Optional[list[int]] = None) -> Any:
    """Plain Python data for a node (dicts, lists, scalars).

    ``budget`` (a one-element list) caps the number of nodes produced so that a subtree
    reached through many aliases cannot explode; when it runs out the rest is ``None``.
    """
    if budget is None:
        budget = [1_000_000]
    if node is None:
        return None
    budget[0] -= 1
    if budget[0] < 0:
        return None
    if isinstance(node, Scalar):
        return node.value
    if isinstance(node, Mapping):
        out = {}
        for k, v in node.items():
            kv = k.value if isinstance(k, Scalar) else str(to_py(k, budget))
            try:
                hash(kv)
            except TypeError:
                kv = str(kv)
            out[kv] = to_py(v, budget)
        return out
    if isinstance(node, Sequence):
        return [to_py(i, budget) for i in node.items]
    return None


def walk(node: Optional[Node], path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Node]]:
    """Depth-first (path, node) pairs; path elements are keys (str) and indexes (int)."""
    if node is None:
        return
    stack = [(path, node)]
    seen = set()
    while stack:
        p, n = stack.pop()
        yield p, n
        if id(n) in seen:  # shared through an alias: walk it once
            continue
        if isinstance(n, Mapping):
            seen.add(id(n))
            for k, v in reversed(list(n.items())):
                stack.append((p + (k.value if isinstance(k, Scalar) else "?",), v))
        elif isinstance(n, Sequence):
            seen.add(id(n))
            for i in range(len(n.items) - 1, -1, -1):
                stack.append((p + (i,), n.items[i]))
