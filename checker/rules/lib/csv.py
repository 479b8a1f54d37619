"""The ClusterServiceVersion as rules read it: the bundle's one CSV, its annotations and spec,
what it owns, and the CSV data table (``checker/data/csv.yaml``)."""
from __future__ import annotations

from typing import Any, Optional

from ...model import REGISTRY_V1, Bundle, Manifest
from ...nodes import Mapping, Scalar, Sequence
from .tables import table
from .text import mapping, seq, stripped


def data() -> dict[str, Any]:
    """The CSV data table, ``checker/data/csv.yaml``."""
    t: dict[str, Any] = table("csv.yaml")
    return t


def the_csv(bundle: Bundle) -> Optional[Manifest]:
    """The bundle's one CSV when it is a registry+v1 bundle whose CSV is a mapping
    (csv-missing and manifest-invalid report the other cases)."""
    if bundle.mediatype not in (REGISTRY_V1, None):
        return None
    c = bundle.csv
    if c is None or not isinstance(c.root, Mapping):
        return None
    return c


def csv_annotation(bundle: Bundle, key: str) -> tuple[Any, Any]:
    """(the CSV, the node of its annotation ``key``): (None, None) without a CSV the rules
    read (``the_csv``), (csv, None) when the annotation is absent."""
    csv = the_csv(bundle)
    if csv is None:
        return None, None
    ann = csv.annotations()
    return csv, (ann.get(key) if ann is not None else None)


def owned_crds(csv: Manifest) -> list[tuple[str, str, str, str, Mapping]]:
    """(name, group, version, kind, entry node) of spec.customresourcedefinitions.owned."""
    out: list[tuple[str, str, str, str, Mapping]] = []
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


def owned_apiservices(csv: Manifest) -> list[tuple[str, str, str, Mapping]]:
    """(group, version, kind, entry node) of spec.apiservicedefinitions.owned."""
    out: list[tuple[str, str, str, Mapping]] = []
    sp = csv.spec()
    api = mapping(sp.get("apiservicedefinitions")) if sp is not None else None
    owned = seq(api.get("owned")) if api is not None else None
    for e in owned or ():
        if isinstance(e, Mapping):
            out.append((e.str("group") or "", e.str("version") or "", e.str("kind") or "", e))
    return out


def examples_annotation(ann: Optional[Mapping]) -> tuple[str, Any]:
    """``(key, node)`` of the CSV's examples: `alm-examples`, or its older spelling
    `olm.examples` when only that one is there; ``("alm-examples", None)`` without either."""
    node = ann.get("alm-examples") if ann is not None else None
    if node is None and ann is not None and ann.get("olm.examples") is not None:
        return "olm.examples", ann.get("olm.examples")
    return "alm-examples", node


def csv_spec(bundle: Bundle) -> Optional[tuple[Manifest, Mapping]]:
    """(csv manifest, spec mapping) of the bundle's one CSV, or None."""
    csv = bundle.csv
    if csv is None:
        return None
    spec = csv.spec()
    if spec is None:
        return None
    return csv, spec


def install_spec(spec: Mapping) -> Optional[Mapping]:
    inst = spec.get("install")
    s = inst.get("spec") if isinstance(inst, Mapping) else None
    return s if isinstance(s, Mapping) else None


def deployments(spec: Mapping) -> list[tuple[Optional[str], Mapping]]:
    """[(name or None, entry mapping)] of spec.install.spec.deployments."""
    s = install_spec(spec)
    deps = s.get("deployments") if s is not None else None
    out: list[tuple[Optional[str], Mapping]] = []
    if isinstance(deps, Sequence):
        for d in deps:
            if isinstance(d, Mapping):
                out.append((stripped(d.get("name")), d))
    return out


def deployment_names(spec: Mapping) -> list[str]:
    return [n for n, _d in deployments(spec) if n]


def install_modes(spec: Mapping) -> Optional[dict[str, tuple[bool, Mapping]]]:
    """{type: (supported bool, entry node)} or None when installModes is not a list."""
    modes = spec.get("installModes")
    if not isinstance(modes, Sequence):
        return None
    out: dict[str, tuple[bool, Mapping]] = {}
    for m in modes:
        if isinstance(m, Mapping):
            t = stripped(m.get("type"))
            s = m.get("supported")
            if t:
                out[t] = (isinstance(s, Scalar) and s.value is True, m)
    return out
