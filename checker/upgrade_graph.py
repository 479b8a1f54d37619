"""The upgrade graph OLM builds for an operator, in one place: the graph rules
(``rules/graph.py``: dangling bundles, loops) and ``olm-check graph`` / the Action's summary
(``graph_view``) both read it. Pure: it takes BundleFacts, an operator's ci.yaml (through
``catalogs.ci_data``) and parsed file-based catalogs; it reads no file.

How each update mode makes the edges (an edge ``a -> b``: clusters on ``a`` may upgrade to
``b``):

- ``replaces-mode`` (opm ``index add --mode replaces``, operator-registry
  ``SemverPackageManifest`` and ``addPackageChannels``): a channel's head is the highest
  version among the bundles that list the channel; opm walks ``spec.replaces`` from the head
  (across channels) and adds the bundles each walked bundle ``spec.skips``; a bundle the walk
  does not reach is not in the catalog (*stranded*), unless a catalog entry's
  ``olm.skipRange`` covers its version (OLM offers that upgrade at run time). Edges:
  ``replaces``, ``skips``, and ``skipRange`` (every bundle of the channel whose version the
  range holds).
- ``semver-mode`` (``--mode semver``, ``BundleGraphLoader.AddBundleToGraph``): each bundle of a
  channel replaces the next lower version of that channel; ``spec.replaces`` and ``spec.skips``
  are not read (channel entries come from version order only), ``olm.skipRange`` still is (a
  bundle property OLM's resolver reads). Nothing is stranded.
- ``semver-skippatch-mode`` (``--mode semver-skippatch``): as semver-mode, and a bundle also
  upgrades every lower patch release of its major.minor (updates jump to the newest patch).
- file-based catalogs (ci.yaml ``fbc.enabled: true``): the ``olm.channel`` entries of the
  catalog (``replaces``, ``skips``, ``skipRange``); the head is the entry nothing replaces or
  skips, stranded are the entries neither on the head's replaces chain nor skipped by it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .upstream.blangsemver import SemverError, parse_tolerant, range_fn
from .catalogs import ci_data, fbc_enabled
from .nodes import Mapping, Scalar, Sequence
from .versions import vkey

REPLACES, SKIPS, SKIP_RANGE, SEMVER, SKIPPATCH = "replaces", "skips", "skipRange", "semver", "skippatch"
REPLACES_MODE, SEMVER_MODE, SKIPPATCH_MODE = "replaces-mode", "semver-mode", "semver-skippatch-mode"
# ci.yaml spellings of the update modes (the catalog CI's operator.py also says "semver-skippatch")
MODES = {"replaces-mode": REPLACES_MODE, "semver-mode": SEMVER_MODE, "semver-skippatch-mode": SKIPPATCH_MODE,
         "semver-skippatch": SKIPPATCH_MODE}


# --- bundle facts ----------------------------------------------------------------------------

def version_of(f):
    """The bundle's version as OLM parses it (blang ParseTolerant): spec.version, else the
    version directory's name; None when neither parses."""
    for v in (f.version, f.version_dir):
        if isinstance(v, str):
            try:
                return parse_tolerant(v)
            except SemverError:
                continue
    return None


def label_of(f) -> str:
    return f.version or f.version_dir or f.csv_name or f.rel


def update_mode(op) -> str:
    """ci.yaml ``updateGraph`` as written (replaces-mode when absent or not a string)."""
    ci = ci_data(op)
    if ci is None:
        return REPLACES_MODE
    ug = ci.get("updateGraph")
    if isinstance(ug, Scalar) and isinstance(ug.value, str):
        return ug.value
    return REPLACES_MODE


def explicit_mode(op) -> bool:
    ci = ci_data(op) if op is not None else None
    return ci is not None and "updateGraph" in ci


def channel_members(facts) -> dict:
    """channel name -> the facts of the bundles that list it (in the order given)."""
    out: dict = {}
    for f in facts:
        for c in f.channels:
            out.setdefault(c, []).append(f)
    return out


def declared_edges(members) -> list:
    """[(older, newer, kind)]: the edges the bundles' own replaces, skips and olm.skipRange
    make among ``members`` (a skipRange edge from every member whose version it holds)."""
    by_csv = {f.csv_name: f for f in members if f.csv_name}
    known = [(v, f) for f in members if (v := version_of(f)) is not None]
    out = []
    for f in members:
        if f.replaces and f.replaces in by_csv:
            out.append((by_csv[f.replaces], f, REPLACES))
        for s, _p in f.skips:
            if s in by_csv:
                out.append((by_csv[s], f, SKIPS))
        if f.skip_range:
            rf = range_fn(f.skip_range)
            if rf is not None:
                for v, g in known:
                    if g is not f and rf(v):
                        out.append((g, f, SKIP_RANGE))
    return out


class Channel:
    """A channel's bundles and the edges their replaces, skips and skipRange declare (the
    graph rules' view: loops, the catalog CI's per-channel graph)."""

    def __init__(self, name: str, members: list) -> None:  # members: BundleFacts
        self.name = name
        self.members = members  # facts
        self.edges: dict[str, set[str]] = {}  # from fact rel -> set of to fact rels (upgrade direction: old -> new)
        self.kinds: dict[tuple[str, str], str] = {}  # (from, to) -> "replaces" | "skips" | "skipRange"
        known = [(v, f) for f in members if (v := version_of(f)) is not None]
        self.head = max(known, key=lambda t: t[0].key())[1] if known else None
        for g, f, kind in declared_edges(members):
            self.edges.setdefault(g.rel, set()).add(f.rel)
            self.kinds.setdefault((g.rel, f.rel), kind)
        self.by_rel = {f.rel: f for f in members}

    def chain_text(self, limit=10) -> str:
        """The replaces chain ending at the head, oldest first: '1.0.0 -> 1.1.0 -> 1.2.0 (head)'."""
        if self.head is None:
            return "(no head)"
        return walk_text(self.head, {f.csv_name: f for f in self.members if f.csv_name}, limit)

    def cycles(self) -> list:  # noqa: C901
        """Elementary cycles found by DFS (one per strongly connected component)."""
        index, low, stack, on, comps = {}, {}, [], set(), []
        counter = [0]

        def strong(v):
            work = [(v, iter(sorted(self.edges.get(v, ()))))]
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            while work:
                node, it = work[-1]
                advanced = False
                for w in it:
                    if w not in index:
                        index[w] = low[w] = counter[0]
                        counter[0] += 1
                        stack.append(w)
                        on.add(w)
                        work.append((w, iter(sorted(self.edges.get(w, ())))))
                        advanced = True
                        break
                    elif w in on:
                        low[node] = min(low[node], index[w])
                if advanced:
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == node:
                            break
                    if len(comp) > 1:
                        comps.append(comp)

        for v in sorted(self.by_rel):
            if v not in index:
                strong(v)
        out = []
        for comp in comps:
            cs = set(comp)
            start = min(comp, key=lambda r: (version_of(self.by_rel[r]).key() if version_of(self.by_rel[r]) else (), r))
            path, seen, cur = [start], {start}, start
            while True:
                nxt = sorted(w for w in self.edges.get(cur, ()) if w in cs)
                if not nxt:
                    break
                back = [w for w in nxt if w == start]
                cur = back[0] if back else next((w for w in nxt if w not in seen), nxt[0])
                path.append(cur)
                if cur in seen:
                    break
                seen.add(cur)
            out.append(path)
        return out


def opm_channels(facts, channels) -> dict:
    """What opm's replaces-mode index build puts in each channel: channel -> (head, {rel}).

    The head is the highest version among the bundles that list the channel; the channel's
    entries are the head and every bundle its `replaces` chain reaches, whatever channels
    those bundles list (opm walks replaces across channels), plus the bundles each of them
    `skips` (entries, not walked further). operator-registry, pkg/sqlite/load.go
    addPackageChannels."""
    by_csv = {f.csv_name: f for f in facts if f.csv_name}
    out = {}
    for cname, members in channels.items():
        known = [(v, f) for f in members if (v := version_of(f)) is not None]
        if not known:
            continue
        head = max(known, key=lambda t: t[0].key())[1]
        walked, entries, cur = set(), set(), head
        while cur is not None and cur.rel not in walked:
            walked.add(cur.rel)
            entries.add(cur.rel)
            for sname, _p in cur.skips:
                if sname in by_csv:
                    entries.add(by_csv[sname].rel)
            cur = by_csv.get(cur.replaces) if cur.replaces else None
        out[cname] = (head, entries)
    return out


def opm_stranded(facts, opm) -> list:
    """The bundles (facts) in a channel but in no channel opm builds (``opm_channels``: not a
    head, not reached by a head's replaces walk nor skipped by a walked bundle) whose version
    no catalog entry's olm.skipRange covers: nothing upgrades from them. A catalog entry's
    skipRange travels with its bundle; its replaces and skips are what the channel's walk made
    of them (a bundle only skipped, not walked, contributes no edges)."""
    heads = {h.rel for h, _e in opm.values()}
    entries = set().union(*(e for _h, e in opm.values())) if opm else set()
    ranges = [(g, range_fn(g.skip_range)) for g in facts if g.rel in entries and g.skip_range]
    out = []
    for f in facts:
        if f.rel in heads or f.rel in entries or not f.channels:
            continue
        v = version_of(f)
        if v is None or any(rf is not None and g is not f and rf(v) for g, rf in ranges):
            continue
        out.append(f)
    return out


def walk_text(head, by_csv, limit=10) -> str:
    """The replaces chain opm walks from a channel head, oldest first: '1.0.0 -> 1.1.0 -> 1.2.0 (head)'."""
    out, seen, cur = [], set(), head
    while cur is not None and cur.rel not in seen:
        seen.add(cur.rel)
        out.append(label_of(cur))
        cur = by_csv.get(cur.replaces) if cur.replaces else None
    out.reverse()
    if len(out) > limit:
        out = out[:2] + ["…"] + out[-(limit - 3):]
    return " -> ".join(out) + " (head)"


# --- the graph as drawn --------------------------------------------------------------------

@dataclass
class GNode:
    id: str  # the CSV name (the bundle path when it has none)
    csv: Optional[str]
    version: Optional[str]  # as written (spec.version, the version directory, the catalog's olm.package)
    path: Optional[str] = None  # the bundle directory (display path); None for a catalog entry without one
    skip_range: Optional[str] = None
    head: bool = False
    stranded: bool = False
    key: tuple = ()  # version sort key

    @property
    def label(self) -> str:
        return self.version or self.csv or self.id


@dataclass
class GEdge:
    src: str  # older: clusters on it ...
    dst: str  # ... may upgrade to this one
    kind: str  # replaces | skips | skipRange | semver | skippatch


@dataclass
class ChannelGraph:
    name: str
    nodes: list = field(default_factory=list)  # GNode, oldest first
    edges: list = field(default_factory=list)  # GEdge

    def node(self, nid: str) -> Optional[GNode]:
        return next((n for n in self.nodes if n.id == nid), None)

    @property
    def heads(self) -> list:
        return [n for n in self.nodes if n.head]


@dataclass
class OperatorGraph:
    operator: str
    mode: str  # replaces-mode | semver-mode | semver-skippatch-mode | fbc
    source: str  # "bundles" or the catalog file's display path
    default_channel: Optional[str] = None
    channels: list = field(default_factory=list)  # ChannelGraph, by name
    notes: list = field(default_factory=list)

    def channel(self, name: str) -> Optional[ChannelGraph]:
        return next((c for c in self.channels if c.name == name), None)

    def to_json(self) -> dict:
        return {"operator": self.operator, "mode": self.mode, "source": self.source,
                "default_channel": self.default_channel, "notes": list(self.notes),
                "channels": [{"name": c.name, "heads": [n.id for n in c.heads],
                              "stranded": [n.id for n in c.nodes if n.stranded],
                              "nodes": [{"id": n.id, "csv": n.csv, "version": n.version, "path": n.path,
                                         "skip_range": n.skip_range, "head": n.head, "stranded": n.stranded}
                                        for n in c.nodes],
                              "edges": [{"from": e.src, "to": e.dst, "kind": e.kind} for e in c.edges]}
                             for c in self.channels]}


def _node_id(f) -> str:
    return f.csv_name or f.rel


def _key(v) -> tuple:
    return (1, v.key()) if v is not None else (0,)


def _gnode(f, rel_of=None) -> GNode:
    v = version_of(f)
    return GNode(_node_id(f), f.csv_name, f.version or f.version_dir, rel_of(f) if rel_of else f.rel,
                 f.skip_range, key=_key(v))


def _dedup(edges) -> list:
    seen, out = set(), []
    for e in edges:
        k = (e.src, e.dst, e.kind)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


def build_from_facts(operator: str, facts: list, mode: str = REPLACES_MODE) -> OperatorGraph:  # noqa: C901
    """The channel graphs of an operator's bundles (``facts``) in an update mode."""
    mode = MODES.get(mode, mode)
    g = OperatorGraph(operator, mode if mode in MODES.values() else REPLACES_MODE, "bundles")
    if mode not in MODES.values():
        g.notes.append(f"ci.yaml updateGraph '{mode}' is not an update mode opm knows; drawn as replaces-mode")
    facts = sorted(facts, key=lambda f: (_key(version_of(f)), f.rel))
    channels = channel_members(facts)
    declaring = [(v, f) for f in facts if (f.default_channel or "").strip() and (v := version_of(f)) is not None]
    if declaring:
        g.default_channel = max(declaring, key=lambda t: t[0].key())[1].default_channel.strip()
    elif len(channels) == 1:
        g.default_channel = next(iter(channels))
    by_rel = {f.rel: f for f in facts}
    if not channels:
        g.notes.append("no bundle of the operator lists a channel (operators.operatorframework.io.bundle.channels.v1)")
    if g.mode == REPLACES_MODE:
        opm = opm_channels(facts, channels)
        stranded = {f.rel for f in opm_stranded(facts, opm)}
        for cname in sorted(channels):
            head, entries = opm.get(cname, (None, set()))
            rels = {f.rel for f in channels[cname]} | entries
            members = [by_rel[r] for r in sorted(rels, key=lambda r: (_key(version_of(by_rel[r])), r))]
            cg = ChannelGraph(cname, [_gnode(f) for f in members])
            for n, f in zip(cg.nodes, members):
                n.head = head is not None and f is head
                n.stranded = f.rel in stranded
            cg.edges = _dedup(GEdge(_node_id(a), _node_id(b), k) for a, b, k in declared_edges(members))
            g.channels.append(cg)
        return g
    for cname in sorted(channels):
        members = channels[cname]
        known = [f for f in members if version_of(f) is not None]
        cg = ChannelGraph(cname, [_gnode(f) for f in members])
        if known:
            top = known[-1]
            for n in cg.nodes:
                n.head = n.id == _node_id(top)
        edges = [GEdge(_node_id(a), _node_id(b), SEMVER) for a, b in zip(known, known[1:])]
        if g.mode == SKIPPATCH_MODE:
            for i, b in enumerate(known):
                vb = version_of(b)
                for a in known[:max(0, i - 1)]:
                    va = version_of(a)
                    if (va.major, va.minor) == (vb.major, vb.minor):
                        edges.append(GEdge(_node_id(a), _node_id(b), SKIPPATCH))
        edges += [GEdge(_node_id(a), _node_id(b), k) for a, b, k in declared_edges(members) if k == SKIP_RANGE]
        cg.edges = _dedup(edges)
        g.channels.append(cg)
    if any(f.replaces or f.skips for f in facts):
        g.notes.append(f"{g.mode}: opm builds the edges from version order; spec.replaces and spec.skips are not read")
    return g


# --- file-based catalogs -----------------------------------------------------------------------

def _plain(n):
    if isinstance(n, Scalar):
        return n.value
    if isinstance(n, Mapping):
        return {k.value if isinstance(k, Scalar) else k: _plain(v) for k, v in n.items()}
    if isinstance(n, Sequence):
        return [_plain(x) for x in n]
    return n


def _bundle_version(blob) -> Optional[str]:
    props = _plain(blob.get("properties"))
    for p in props if isinstance(props, list) else []:
        if isinstance(p, dict) and p.get("type") == "olm.package" and isinstance(p.get("value"), dict):
            v = p["value"].get("version")
            return str(v) if v is not None else None
    return None


def build_from_catalog(operator: str, cat) -> OperatorGraph:  # noqa: C901
    """The channel graphs of an operator's file-based catalog (``catalogs.FbcCatalog``)."""
    g = OperatorGraph(operator, "fbc", cat.rel or f"catalogs/{cat.release_dir}/{operator}")
    versions = {}
    chans = []
    for b in cat.blobs:
        if b.schema == "olm.package" and b.str("name") == operator:
            g.default_channel = b.str("defaultChannel")
        elif b.schema == "olm.bundle" and b.str("name"):
            versions[b.str("name")] = _bundle_version(b)
        elif b.schema == "olm.channel" and b.str("name") and b.str("package") in (operator, None):
            chans.append(b)
    for b in sorted(chans, key=lambda b: b.str("name")):
        entries = _plain(b.get("entries"))
        entries = [e for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)] if isinstance(entries, list) else []
        cg = ChannelGraph(b.str("name"))
        replaces, skips, ranges = {}, {}, {}
        for e in entries:
            nm = e["name"]
            if cg.node(nm) is not None:
                continue
            ver = versions.get(nm)
            try:
                key = _key(parse_tolerant(ver)) if ver else (0,)
            except SemverError:
                key = (0,)
            sr = e.get("skipRange") if isinstance(e.get("skipRange"), str) else None
            cg.nodes.append(GNode(nm, nm, ver, None, sr, key=key))
            if isinstance(e.get("replaces"), str) and e["replaces"]:
                replaces[nm] = e["replaces"]
            skips[nm] = [s for s in (e.get("skips") or []) if isinstance(s, str)] if isinstance(e.get("skips"), list) else []
            if sr:
                ranges[nm] = range_fn(sr)
        cg.nodes.sort(key=lambda n: (n.key, n.id))
        ids = {n.id for n in cg.nodes}
        edges = []
        for n in cg.nodes:
            if replaces.get(n.id) in ids:
                edges.append(GEdge(replaces[n.id], n.id, REPLACES))
            edges += [GEdge(s, n.id, SKIPS) for s in skips.get(n.id, []) if s in ids]
            rf = ranges.get(n.id)
            if rf is not None:
                for m in cg.nodes:
                    if m is not n and m.version:
                        try:
                            if rf(parse_tolerant(m.version)):
                                edges.append(GEdge(m.id, n.id, SKIP_RANGE))
                        except SemverError:
                            pass
        cg.edges = _dedup(edges)
        incoming = set(replaces.values()) | {s for v in skips.values() for s in v}
        heads = [n for n in cg.nodes if n.id not in incoming]
        for n in heads:
            n.head = True
        if len(heads) == 1:
            covered, walked, cur = set(), set(), heads[0].id
            while cur in ids and cur not in walked:
                walked.add(cur)
                covered.add(cur)
                covered.update(skips.get(cur, []))
                cur = replaces.get(cur)
            for n in cg.nodes:
                n.stranded = n.id not in covered
        elif len(heads) > 1:
            g.notes.append(f"channel '{cg.name}' has {len(heads)} heads; opm refuses it (fbc-schema)")
        g.channels.append(cg)
    return g


def pick_catalog(oc, release: Optional[str] = None):
    """The catalog to draw of an operator's catalogs (``catalogs.OperatorCatalogs``): the
    given release's, else the newest release's that is on disk and readable."""
    if oc is None:
        return None
    if release is not None:
        cat = oc.catalogs.get(release)
        return cat if cat is not None and cat.known else None
    for ocp in sorted(oc.catalogs, key=vkey, reverse=True):
        if oc.catalogs[ocp].known:
            return oc.catalogs[ocp]
    return None


def operator_graph(operator: str, op, facts: list, oc=None, release: Optional[str] = None) -> OperatorGraph:
    """The graph OLM builds for one operator: from its file-based catalog when ci.yaml enables
    FBC and a catalog is there, else from its bundles in the ci.yaml update mode."""
    if op is not None and fbc_enabled(ci_data(op)):
        cat = pick_catalog(oc, release)
        if cat is not None:
            return build_from_catalog(operator, cat)
        g = build_from_facts(operator, facts, update_mode(op))
        g.notes.append("fbc.enabled, but no readable catalog" + (f" for {release}" if release else "") +
                       ": drawn from the bundles")
        return g
    return build_from_facts(operator, facts, update_mode(op) if op is not None else REPLACES_MODE)
