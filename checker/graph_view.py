"""The upgrade graph for people: ``olm-check graph OPERATOR_DIR`` (text, Mermaid, DOT, JSON)
and the Action's summary, which shows each changed operator's graph as a Mermaid block
(GitHub renders it): the changed bundle highlighted, the edges it adds, the channel heads and
any bundle it strands, around the change only ("… N older" for the rest).

The graph itself is ``upgrade_graph``'s (the model the graph rules use); this module loads an
operator and draws it.

What is drawn: every replaces / skips / semver / skippatch edge; an ``olm.skipRange`` edge
only from a bundle that has no other way out, to the newest bundle whose range covers it (the
upgrade OLM offers; a range covering 40 older bundles would otherwise draw 40 arrows per
bundle). The text and JSON formats list every edge.
"""
from __future__ import annotations

import json
import os
import re
from typing import Optional

from .upgrade_graph import (REPLACES, SEMVER, SEMVER_MODE, SKIP_RANGE, SKIPPATCH, SKIPPATCH_MODE, SKIPS, ChannelGraph,
                            OperatorGraph, build_from_facts, operator_graph)
from .usage import Usage
from .versions import LABEL_KEY

FORMATS = ("text", "mermaid", "dot", "json")
ARROW = {REPLACES: "-->", SEMVER: "-->", SKIPS: "-.->|skips|", SKIP_RANGE: "-.->|skipRange|", SKIPPATCH: "-.->|skippatch|"}


# --- loading ---------------------------------------------------------------------------------

def operator_name(path: str) -> Optional[str]:
    """The operator of ``operators/<name>/`` (the directory itself, not a bundle in it)."""
    from .layout import locate

    if not os.path.isdir(path):
        return None
    place = locate(path)
    if place is not None and place.operator and os.path.abspath(path) == place.operator_dir:
        return place.operator
    return None


def load_operator(path: str):
    """(name, Operator, [BundleFacts], OperatorCatalogs or None, display path of each bundle)
    of an operator directory: every bundle of it loaded (as context: no rule runs)."""
    from .discover import plan
    from .facts import bundle_facts

    name = operator_name(path)
    if name is None:
        raise Usage(f"{path}: not an operator directory (operators/<name>/ holding the operator's bundle "
                    "directories and ci.yaml)" if os.path.exists(path) else f"{path}: no such file or directory")
    repo = plan([path])
    reader = repo.reader
    key = os.path.abspath(path)  # repo.operators is keyed by operator directory
    op = repo.operators.get(key)
    facts = []
    for ref in repo.bundle_refs:
        if ref.operator_dir == key:
            b = _light_bundle(reader, ref)
            f = bundle_facts(b, checked=False)
            lab = b.annotation(LABEL_KEY)  # the light bundle is not analysed: its label as written
            f.label = f.label if f.label is not None else (lab.value if lab is not None and isinstance(lab.value, str) else None)
            facts.append(f)
    oc = repo.fbc.get(name)
    return name, op, facts, oc


def published_to(facts, release: str) -> list:
    """The bundles (facts) the catalog of ``release`` holds, from their labels
    (com.redhat.openshift.versions; no label or an unreadable one: every release with a
    catalog). Each release's catalog has its own channels: what ``graph --ocp`` draws for an
    operator whose graph comes from its bundles."""
    from .versions import OcpTable, label_releases, parse_label

    table = OcpTable.load()
    rel = table.get(release)
    out = []
    for f in facts:
        lr = parse_label(f.label) if f.label is not None else None
        if lr is not None and lr.ok:
            names = {r.ocp for r in label_releases(lr, table)}
        else:
            names = {r.ocp for r in table.catalog_releases}
        if rel is not None and rel.ocp in names:
            out.append(f)
    return out


def _light_bundle(reader, ref):
    """A bundle with only what the graph needs read: metadata/annotations.yaml and the
    manifests that hold a ClusterServiceVersion (a byte search first: CRDs, often most of a
    bundle's bytes, are not parsed)."""
    from .load import _entries, load_metadata
    from .model import Manifest

    b = load_metadata(reader, ref.path)
    b.operator, b.version_dir = ref.operator, ref.version_dir
    for e in _entries(os.path.join(ref.path, "manifests")):
        try:
            if not e.is_file() or e.stat().st_size > (16 << 20):
                continue
            with open(e.path, "rb") as fh:
                if b"ClusterServiceVersion" not in fh.read():
                    continue
        except OSError:
            continue
        sf = reader.yaml_file(e.path)
        for i, doc in enumerate(sf.documents):
            if doc is not None:
                b.manifests.append(Manifest(file=sf, index=i, root=doc))
    return b


def graph_of(path: str, release: Optional[str] = None) -> OperatorGraph:
    from .catalogs import ci_data, fbc_enabled

    name, op, facts, oc = load_operator(path)
    if release is not None and not (op is not None and fbc_enabled(ci_data(op))):
        g = operator_graph(name, op, published_to(facts, release), oc, release)
        g.notes.append(f"the OpenShift {release} catalog: the bundles whose com.redhat.openshift.versions publishes them there")
        return g
    return operator_graph(name, op, facts, oc, release)


# --- drawing ---------------------------------------------------------------------------------

def drawn_edges(cg: ChannelGraph, ids: Optional[set] = None) -> list:
    """The edges worth drawing (see the module's docstring), among ``ids`` when given."""
    ids = {n.id for n in cg.nodes} if ids is None else ids
    edges = [e for e in cg.edges if e.src in ids and e.dst in ids]
    other_out = {e.src for e in edges if e.kind != SKIP_RANGE}
    order = {n.id: i for i, n in enumerate(cg.nodes)}
    best: dict = {}
    for e in edges:
        if e.kind == SKIP_RANGE and e.src not in other_out:
            if e.src not in best or order.get(e.dst, 0) > order.get(best[e.src].dst, 0):
                best[e.src] = e
    keep = {id(e) for e in best.values()}
    out, pairs = [], set()
    for e in edges:
        if (e.kind != SKIP_RANGE or id(e) in keep) and (e.src, e.dst) not in pairs:
            pairs.add((e.src, e.dst))
            out.append(e)
    return out


_SAFE = re.compile(r"[A-Za-z0-9 .,:/+=_()*-]")


def mermaid_text(s: str) -> str:
    """A Mermaid label: every character outside a small safe set as an entity code (``#60;``),
    so no quote, bracket, backtick, markdown or HTML in a name can break the diagram."""
    return "".join(c if _SAFE.fullmatch(c) else f"#{ord(c)};" for c in str(s))


def _node_text(n, changed: set) -> str:
    marks = [m for m, on in (("new", n.id in changed), ("head", n.head), ("stranded", n.stranded)) if on]
    return n.label + (f" ({', '.join(marks)})" if marks else "")


CLASSDEFS = ["  classDef head stroke-width:3px",
             "  classDef stranded fill:#fde2e2,stroke:#c00,stroke-dasharray:4 3",
             "  classDef changed fill:#fff3b0,stroke:#b58900,stroke-width:3px",
             "  classDef more fill:none,stroke:none"]


def _mermaid_channel(cg: ChannelGraph, cix: int, out: list, links: list, changed: set, ids: Optional[set] = None,
                     older: int = 0, between: Optional[dict] = None) -> None:
    """One channel as a subgraph; appends to ``out`` and the drawn edges to ``links`` (their
    index is their linkStyle number)."""
    nid = {n.id: f"c{cix}n{i}" for i, n in enumerate(cg.nodes)}
    shown = [n for n in cg.nodes if ids is None or n.id in ids]
    heads = ", ".join(n.label for n in cg.heads) or "none"
    out.append(f"  subgraph c{cix}[\"{mermaid_text(f'channel {cg.name} - head {heads}')}\"]")
    out.append("    direction LR")
    if older:
        out.append(f"    c{cix}older[\"{mermaid_text(f'… {older} older')}\"]:::more")
    for n in shown:
        cls = "changed" if n.id in changed else "stranded" if n.stranded else "head" if n.head else ""
        out.append(f"    {nid[n.id]}[\"{mermaid_text(_node_text(n, changed))}\"]" + (f":::{cls}" if cls else ""))
    for key, count in (between or {}).items():
        out.append(f"    c{cix}gap{key}[\"{mermaid_text(f'… {count} more')}\"]:::more")
    out.append("  end")
    if older and shown:
        out.append(f"  c{cix}older -.- {nid[shown[0].id]}")
        links.append(None)
    for key in (between or {}):
        a, b = key.split("_")
        out.append(f"  c{cix}n{a} -.- c{cix}gap{key} -.- c{cix}n{b}")
        links += [None, None]
    for e in drawn_edges(cg, {n.id for n in shown}):
        out.append(f"  {nid[e.src]} {ARROW.get(e.kind, '-->')} {nid[e.dst]}")
        links.append(e)


def mermaid(g: OperatorGraph, channels: Optional[list] = None) -> str:
    out = ["flowchart LR"]
    links: list = []
    for cix, cg in enumerate(channels if channels is not None else g.channels):
        _mermaid_channel(cg, cix, out, links, set())
    return "\n".join(out + CLASSDEFS) + "\n"


def _dot_str(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def dot(g: OperatorGraph, channels: Optional[list] = None) -> str:
    out = [f"digraph {_dot_str(g.operator)} {{", "  rankdir=LR;", "  node [shape=box];"]
    for cix, cg in enumerate(channels if channels is not None else g.channels):
        nid = {n.id: f"c{cix}n{i}" for i, n in enumerate(cg.nodes)}
        out.append(f"  subgraph cluster_{cix} {{")
        out.append(f"    label={_dot_str('channel ' + cg.name)};")
        for n in cg.nodes:
            attrs = [f"label={_dot_str(_node_text(n, set()))}", f"tooltip={_dot_str(n.csv or n.id)}"]
            if n.head:
                attrs.append("penwidth=3")
            if n.stranded:
                attrs += ["style=\"dashed,filled\"", "fillcolor=\"#fde2e2\"", "color=\"#cc0000\""]
            out.append(f"    {nid[n.id]} [{', '.join(attrs)}];")
        out.append("  }")
        for e in drawn_edges(cg):
            style = "" if e.kind in (REPLACES, SEMVER) else f" [style=dashed, label={_dot_str(e.kind)}]"
            out.append(f"  {nid[e.src]} -> {nid[e.dst]}{style};")
    out.append("}")
    return "\n".join(out) + "\n"


def _few(names: list, n: int = 4) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def text(g: OperatorGraph, channels: Optional[list] = None) -> str:
    out = [f"{g.operator}: {g.mode}, from {g.source}; default channel {g.default_channel or 'none'}"]
    out += [f"note: {n}" for n in g.notes]
    for cg in channels if channels is not None else g.channels:
        stranded = [n for n in cg.nodes if n.stranded]
        heads = ", ".join(n.label for n in cg.heads) or "none"
        out.append("")
        out.append(f"channel {cg.name}: {len(cg.nodes)} bundle{'s' if len(cg.nodes) != 1 else ''}, head {heads}"
                   + (f", {len(stranded)} stranded" if stranded else ""))
        label = {n.id: n.label for n in cg.nodes}
        width = max((len(n.label) for n in cg.nodes), default=0)
        for n in reversed(cg.nodes):
            marks = "".join(f" [{m}]" for m, on in (("head", n.head), ("stranded", n.stranded)) if on)
            ins: dict = {}
            for e in cg.edges:
                if e.dst == n.id:
                    ins.setdefault(e.kind, []).append(label[e.src])
            parts = []
            for kind in (REPLACES, SEMVER, SKIPPATCH, SKIPS):
                if kind in ins:
                    parts.append(f"{_few(ins[kind])} (version order)" if kind == SEMVER else f"{kind} {_few(ins[kind])}")
            if n.skip_range:
                cov = ins.get(SKIP_RANGE, [])
                parts.append(f"skipRange '{n.skip_range}' covers {len(cov)}" + (f" ({_few(cov, 3)})" if cov else ""))
            out.append(f"  {n.label:<{width}}  {n.csv or ''}{marks}" + (f"  <- {'; '.join(parts)}" if parts else ""))
    return "\n".join(out) + "\n"


def render(g: OperatorGraph, fmt: str, channels: Optional[list] = None) -> str:
    if fmt == "json":
        d = g.to_json()
        if channels is not None:
            names = {c.name for c in channels}
            d["channels"] = [c for c in d["channels"] if c["name"] in names]
        return json.dumps(d, indent=2, ensure_ascii=False) + "\n"
    return {"mermaid": mermaid, "dot": dot, "text": text}[fmt](g, channels)


def cmd_graph(args) -> int:
    from .targets import parse_target

    release = None
    if args.ocp:
        rel = parse_target(args.ocp)
        if len(rel) != 1:
            raise Usage("--ocp: give one release, e.g. 4.18 (the file-based catalog to draw)")
        release = rel[0]
    g = graph_of(args.path, release)
    channels = None
    if args.channel is not None:
        cg = g.channel(args.channel)
        if cg is None:
            known = ", ".join(c.name for c in g.channels) or "none"
            raise Usage(f"--channel {args.channel}: operator '{g.operator}' has no such channel (its channels: {known})")
        channels = [cg]
    print(render(g, args.format, channels), end="")
    return 0


# --- the Action's summary ----------------------------------------------------------------------

AROUND = 3  # releases shown on each side of the change
MAX_OPERATORS = 5
MAX_CHANNELS = 3


def _window(cg: ChannelGraph, focus: set, keep: set) -> tuple:
    """(ids shown, hidden older count, {"a_b": hidden count between shown a and b}): the
    releases around the changed bundles, the heads, and ``keep`` (bundles the change strands,
    bundles its edges come from)."""
    idx = [i for i, n in enumerate(cg.nodes) if n.id in focus]
    if not idx:
        return set(), 0, {}
    show: set = set()
    for i in idx:
        show.update(range(max(0, i - AROUND), min(len(cg.nodes), i + AROUND + 1)))
    show.update(i for i, n in enumerate(cg.nodes) if n.head or n.id in keep)
    order = sorted(show)
    older = order[0]
    between = {}
    for a, b in zip(order, order[1:]):
        if b - a > 1:
            between[f"{a}_{b}"] = b - a - 1
    return {cg.nodes[i].id for i in order}, older, between


def changed_graphs(root: str, bundles: list) -> list:
    """[(OperatorGraph, changed CSV names, {channel: [ids the change strands]})] for the
    operators of the checked bundles (report["bundles"]: path, csv) in a catalog repository."""
    from .layout import operator_of_rel

    by_op: dict = {}
    for b in bundles:
        name = operator_of_rel(b.get("path") or "")
        if name and b.get("csv"):
            by_op.setdefault(name, []).append(b["csv"])
    out = []
    for name in sorted(by_op)[:MAX_OPERATORS]:
        path = os.path.join(root, "operators", name)
        if not os.path.isdir(path):
            continue
        opname, op, facts, oc = load_operator(path)
        g = operator_graph(opname, op, facts, oc)
        changed = set(by_op[name])
        if g.mode == "fbc" and not any(n.id in changed for cg in g.channels for n in cg.nodes):
            g = _placed(root, op, opname, facts, oc, changed) or g  # not in catalogs/ before its release
        strands = {}
        if g.source == "bundles":
            # what the graph strands without the changed bundles: the difference is theirs
            without = build_from_facts(opname, [f for f in facts if f.csv_name not in changed], g.mode)
            for cg in g.channels:
                before = without.channel(cg.name)
                was = {n.id for n in before.nodes if n.stranded} if before is not None else set()
                new = [n.id for n in cg.nodes if n.stranded and n.id not in was and n.id not in changed]
                if new:
                    strands[cg.name] = new
        out.append((g, changed, strands))
    return out


def _placed(root: str, op, operator: str, facts: list, oc, changed: set):
    """The FBC graph with the changed bundles placed as the catalog build will place them
    (``fbc_place``: release-config.yaml, the catalog templates, ci.yaml's catalog_mapping);
    None when no changed bundle says where it goes."""
    from .fbc_place import place
    from .upgrade_graph import build_from_catalog, version_of

    got = None
    for f in facts:
        if f.csv_name not in changed:
            continue
        v = version_of(f)
        for p in place(root, op, operator, os.path.join(root, *f.rel.split("/")), f.csv_name,
                       f.version or (str(v) if v is not None else None), oc):
            if p.catalog is None:
                continue
            g = build_from_catalog(operator, p.catalog)
            rels = ", ".join(p.releases) or "no release"
            how = ("by its release-config.yaml" if os.path.isfile(os.path.join(root, *f.rel.split("/"), "release-config.yaml"))
                   else "as the pull request's catalog template lists it")
            g.notes.insert(0, f"{f.rel} is not in catalogs/ yet: placed as the catalog build will, {how}, into "
                              f"{p.template} ({p.kind}; channels {', '.join(p.channels) or 'none'}), rendered for {rels}")
            g.notes += p.notes
            if got is None:
                got = g
    return got


def pr_markdown(root: str, bundles: list) -> str:
    """The summary's "Upgrade graph" section: one Mermaid block per changed operator, with the
    channels its changed bundles are in (at most three). Names from the bundles are inert:
    entity codes in the diagram, code spans or escaped text around it."""
    from .report.markdown import code, text as md_text

    parts = []
    for g, changed, strands in changed_graphs(root, bundles):
        chans = [cg for cg in g.channels if any(n.id in changed for n in cg.nodes)][:MAX_CHANNELS]
        if not chans or sum(len(cg.nodes) for cg in g.channels) <= 1:
            continue  # (a new operator's first bundle alone: a one-node graph says nothing)
        out = ["flowchart LR"]
        links: list = []
        lines = []
        for cix, cg in enumerate(chans):
            keep = set(strands.get(cg.name, []))
            # the edges the changed bundles make: their own replaces / skips / skipRange (edges into
            # them); in the semver modes, version order also links them to the next release
            semver = g.mode in (SEMVER_MODE, SKIPPATCH_MODE)
            adds = [e for e in cg.edges if e.dst in changed or (semver and e.src in changed)]
            keep.update(e.src for e in adds if e.dst in changed and e.kind != SKIP_RANGE)
            ids, older, between = _window(cg, changed, keep)
            _mermaid_channel(cg, cix, out, links, changed, ids, older, between)
            label = {n.id: n.label for n in cg.nodes}
            heads = ", ".join(n.label for n in cg.heads) or "none"
            added = sorted({f"{label[e.src]} → {label[e.dst]} ({e.kind})" for e in adds if e.kind != SKIP_RANGE})
            ranged = [n for n in cg.nodes if n.id in changed and n.skip_range]
            for n in ranged:
                cov = sum(1 for e in cg.edges if e.dst == n.id and e.kind == SKIP_RANGE)
                added.append(f"skipRange '{n.skip_range}' of {n.label} covers {cov} bundle{'s' if cov != 1 else ''}")
            line = f"- channel {code(cg.name, table=False)}: {md_text(f'head {heads}; edges of the change: ' + ('; '.join(added) or 'none'))}"
            if strands.get(cg.name):
                line += f"; **strands** {md_text(', '.join(label[i] for i in strands[cg.name]))}"
            lines.append(line + "\n")
        hot = [i for i, e in enumerate(links) if e is not None and (e.dst in changed or (e.src in changed and g.mode in
                                                                                         (SEMVER_MODE, SKIPPATCH_MODE)))]
        if hot:
            out.append(f"  linkStyle {','.join(map(str, hot))} stroke:#b58900,stroke-width:3px")
        block = "\n".join(out + CLASSDEFS)
        parts.append(f"#### {code(g.operator, table=False)} ({md_text(g.mode)}, from {code(g.source, table=False)})\n\n"
                     f"```mermaid\n{block}\n```\n\n" + "".join(lines)
                     + "".join(f"- note: {md_text(n)}\n" for n in g.notes))
    if not parts:
        return ""
    return "### Upgrade graph\n\nThe channel graphs OLM builds with the change (an arrow: clusters on a bundle may " \
           "upgrade to the next).\n\n" + "\n".join(parts)

