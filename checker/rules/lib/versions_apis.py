"""The Kubernetes APIs a bundle uses, checked by the version rules ``removed-api``,
``removed-api-on-upgrade``, ``deprecated-api`` and ``api-not-yet-available`` against the
releases of its range. No rules here."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator, Optional

from ...model import Bundle, SourceFile
from ...nodes import Mapping, Node, Scalar, Sequence
from ...versions import ApiEntry, ApiTable, OcpTable, Release, vkey
from .versions_common import CATALOGS_DECIDE


def api_uses(bundle: Bundle) -> Iterator[tuple[Optional[str], Any, Any, SourceFile, Node, str]]:
    """(group, version, kind, file, node, where) for every API the bundle uses."""
    for m in bundle.manifests:
        av = m.root.get("apiVersion") if isinstance(m.root, Mapping) else None
        kind = m.kind
        if isinstance(av, Scalar) and isinstance(av.value, str) and kind:
            g, _, v = av.value.rpartition("/")
            yield g, v, kind, m.file, av, "manifest"
    csv = bundle.csv
    if csv is None:
        return
    spec = csv.spec()
    crds = spec.get("customresourcedefinitions") if spec is not None else None
    owned = crds.get("owned") if isinstance(crds, Mapping) else None
    if isinstance(owned, Sequence):
        for o in owned:
            res = o.get("resources") if isinstance(o, Mapping) else None
            if isinstance(res, Sequence):
                for r in res:
                    if isinstance(r, Mapping) and r.str("kind") and r.str("version"):
                        yield None, r.str("version"), r.str("kind"), csv.file, r, "resources"
    ex = csv.annotation("alm-examples")
    if ex is not None and isinstance(ex.value, str) and ex.value.strip():
        try:
            objs = json.loads(ex.value)
        except ValueError:
            objs = None
        if isinstance(objs, list):
            for o in objs:
                if isinstance(o, dict) and isinstance(o.get("apiVersion"), str) and isinstance(o.get("kind"), str):
                    g, _, v = o["apiVersion"].rpartition("/")
                    yield g, v, o["kind"], csv.file, ex, "alm-examples"


def describe_use(where: str, g: Optional[str], v: str, kind: str) -> str:
    """An API use as a message names it."""
    gv = f"{g}/{v}" if g else v
    if where == "resources":
        return f"{kind} {v} (named in an owned CRD's resources entry)"
    if where == "alm-examples":
        return f"the alm-examples object {gv} {kind}"
    return f"{gv} {kind}"


@dataclass(frozen=True)
class ApiUse:
    """One API use, once per place: its group (None for an owned CRD's resources entry, which
    names a kind and version), version, kind, where it is, and the API table's entry (None when
    the table does not know it)."""

    g: Optional[str]
    v: str
    kind: str
    file: SourceFile
    node: Node
    where: str  # manifest | resources | alm-examples
    what: str  # as messages name it
    entry: Optional[ApiEntry]


@dataclass(frozen=True)
class ApiRange:
    """The releases the API uses are checked against: ``rng`` (installable, else published),
    its first release ``lo``, the upper bound of what publishes it (None when open) and the
    maxOpenShiftVersion key (None without one)."""

    rng: list[Release]
    lo: Release
    upper: Optional[tuple[int, int]]
    mx: Optional[tuple[int, int]]


def api_range(bundle: Bundle, table: OcpTable) -> Optional[ApiRange]:
    """The range of ``bundle`` for the API rules; None when it names no known release."""
    vi = bundle.versions
    found = [table.get(v) for v in (vi.ocp_installable or vi.ocp_versions)]
    rng = [r for r in found if r is not None]
    if not rng:
        return None
    lr = vi.label_parsed
    upper = None
    if not vi.explicit_target:
        if vi.publication_source == "label" and lr is not None and lr.ok and lr.upper is not None:
            upper = lr.upper
        elif vi.publication_source in CATALOGS_DECIDE and vi.ocp_versions and table.get(vi.ocp_versions[-1]) is not None \
                and vkey(vi.ocp_versions[-1]) < table.newest.key:
            upper = vkey(vi.ocp_versions[-1])
    mx = vkey(vi.max_ocp) if vi.max_ocp else None
    return ApiRange(rng, rng[0], upper, mx)


_LAST: tuple[Any, Any, list[ApiUse]] = (None, None, [])  # (bundle, apis table, uses): the four API rules read one bundle in turn


def uses(bundle: Bundle, apis: ApiTable) -> list[ApiUse]:
    """Every API use of ``bundle`` once per place (file, line, group, version, kind), with its
    entry in ``apis`` (``ctx.apis``). A local cache of the last bundle: the four API rules
    read the same list."""
    global _LAST
    last = _LAST  # one read: another thread may replace it
    if last[0] is bundle and last[1] is apis:
        return last[2]
    out: list[ApiUse] = []
    seen: set[tuple[str, int, Optional[str], str, str]] = set()
    for g, v, kind, file, node, where in api_uses(bundle):
        entries = [apis.lookup(g, v, kind)] if g is not None else apis.lookup_kind_version(kind, v)
        entries = [e for e in entries if e is not None]
        key = (file.rel, node.line, g, v, kind)
        if key in seen:
            continue
        seen.add(key)
        out.append(ApiUse(g, v, kind, file, node, where, describe_use(where, g, v, kind), entries[0] if entries else None))
    _LAST = (bundle, apis, out)
    return out
