"""CatalogSource manifests (operators.coreos.com/v1alpha1), as the rules of
``checker/rules/catalogsource/`` read them: each one's spec, which source it configures
(``Source``: the proposal's blocks, or today's ``sourceType`` and its fields), and the
equivalent spec in the other schema."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from ...model import Repository, SourceFile
from ...nodes import Mapping, Node, Scalar, Sequence, to_py

CS_CRD = "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_catalogsources.yaml"
CS_REGISTRY = ("https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/"
               "operators/catalog/operator.go")

LEGACY_SOURCE_FIELDS = ("sourceType", "image", "address", "configMap", "grpcPodConfig", "updateStrategy")
BLOCKS = ("catalogImageSource", "catalogServiceSource", "configMapSource")
KNOWN_SPEC = set(LEGACY_SOURCE_FIELDS) | set(BLOCKS) | {"priority", "secrets", "displayName", "description", "publisher", "icon"}
# the proposal's blocks and the fields it defines for each (seed 003: CatalogImageSource,
# CatalogServiceSource, ConfigMapSource; podSpecOverrides replaces grpcPodConfig)
BLOCK_FIELDS = {"catalogImageSource": ("catalogImage", "podSpecOverrides"), "catalogServiceSource": ("address",),
                "configMapSource": ("configMap",)}
OVERRIDE_FIELDS = ("nodeSelector", "tolerations", "priorityClassName")


def catalog_sources(repo: Repository) -> Iterator[tuple[SourceFile, Mapping, Any]]:
    """(file, root, spec) of each CatalogSource of ``repo`` whose document is a mapping (spec:
    its ``spec`` node, None when absent)."""
    for m in repo.catalog_sources:
        if isinstance(m.root, Mapping):
            yield m.file, m.root, m.root.get("spec")


def is_set(n: Any) -> bool:
    """A field counts as set when present with a non-empty value (Go omitempty)."""
    if n is None:
        return False
    if isinstance(n, Scalar):
        return n.value not in (None, "")
    if isinstance(n, (Mapping, Sequence)):
        return len(n) > 0
    return True


def key_at(m: Mapping, key: str) -> Node:
    """The node to point at for ``key`` of mapping ``m``: the key node (``m`` without it)."""
    k = m.key_node(key)
    return k if k is not None else m


def yaml_inline(n: Any) -> str:
    v = to_py(n)
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(", ", ": "))


@dataclass
class Source:
    """Which source a CatalogSource spec configures, as the catalog operator reads it.

    ``shape``: "blocks" (more than one of the proposal's blocks), "mixed" (a block and top-level
    source fields), "block" (one block), "untyped" (no sourceType), "unknown" (a sourceType OLM
    does not know), "grpc", or "configmap" (``internal`` too)."""

    shape: str
    blocks: list[str]
    legacy_present: list[str]  # the top-level image, address and configMap that are set
    st_node: Optional[object]
    st: Optional[str]


def source_of(spec: Mapping) -> Source:
    blocks = [b for b in BLOCKS if b in spec]
    st_node = spec.get("sourceType")
    st = st_node.value if isinstance(st_node, Scalar) and isinstance(st_node.value, str) else None
    legacy_present = [k for k in ("image", "address", "configMap") if is_set(spec.get(k))]
    if len(blocks) > 1:
        shape = "blocks"
    elif blocks and legacy_present:
        shape = "mixed"
    elif blocks:
        shape = "block"
    elif st_node is None:
        shape = "untyped"
    elif st not in ("grpc", "configmap", "internal"):
        shape = "unknown"
    else:
        shape = "grpc" if st == "grpc" else "configmap"
    return Source(shape, blocks, legacy_present, st_node, st)


def legacy_equivalent(spec: Mapping, block: str) -> str:
    """Today's spec for the proposal's ``block``, inline."""
    b = spec.get(block)
    parts = []
    keys: tuple[tuple[str, str], ...]
    if block == "catalogImageSource":
        parts.append("sourceType: grpc")
        keys = (("catalogImage", "image"), ("podSpecOverrides", "grpcPodConfig"))
    elif block == "catalogServiceSource":
        parts.append("sourceType: grpc")
        keys = (("address", "address"),)
    else:
        parts.append("sourceType: configmap")
        keys = (("configMap", "configMap"),)
    if isinstance(b, Mapping):
        for k, legacy in keys:
            v = b.get(k)
            if v is not None:
                parts.append(f"{legacy}: {yaml_inline(v)}")
            elif legacy in ("image", "address", "configMap"):
                parts.append(f"{legacy}: <{legacy}>")
    return "; ".join(parts)


def new_equivalent(spec: Mapping, st: Optional[str]) -> str:
    """The proposal's block for today's top-level source fields, inline."""
    img, addr, cm = spec.get("image"), spec.get("address"), spec.get("configMap")
    if st == "grpc" and is_set(img):
        inner = [f"catalogImage: {yaml_inline(img)}"]
        gpc = spec.get("grpcPodConfig")
        if isinstance(gpc, Mapping):
            over = [f"{k}: {yaml_inline(gpc.get(k))}" for k in OVERRIDE_FIELDS if gpc.get(k) is not None]
            if over:
                inner.append("podSpecOverrides: {" + ", ".join(over) + "}")
        return "catalogImageSource: {" + ", ".join(inner) + "}"
    if st == "grpc" and is_set(addr):
        return "catalogServiceSource: {address: " + yaml_inline(addr) + "}"
    if st in ("configmap", "internal") and is_set(cm):
        return "configMapSource: {configMap: " + yaml_inline(cm) + "}"
    return "one of catalogImageSource: {catalogImage: ...}, catalogServiceSource: {address: ...}, configMapSource: {configMap: ...}"
