"""What the catalog rules read of a catalog repository, below the rules: which operators a run
checks and what their ci.yaml says (``checker.catalogs``), the upgrade-graph model shared with
``olm-check graph`` (``checker.upgrade_graph``), blang/semver as OLM parses versions and ranges
(``checker.upstream.blangsemver``) -- which the rules import themselves -- and the small helpers
several catalog rules share."""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional, Sequence

from ...catalogs import ci_data, fbc_enabled
from ...model import BundleFacts, Operator, Repository
from ...upgrade_graph import Channel, explicit_mode, update_mode


def operators(repo: Repository) -> dict[str, tuple[Optional[Operator], list[BundleFacts]]]:
    """operator name -> (Operator or None, [facts]) of the repository slice's bundles in operators/<name>/, by name."""
    by: dict[str, list[BundleFacts]] = {}
    for f in repo.facts:
        if f.operator:
            by.setdefault(f.operator, []).append(f)
    return {name: (repo.operators.get(name), fs) for name, fs in sorted(by.items())}


def fbc_operator(op: Optional[Operator]) -> bool:
    """True when the operator's ci.yaml enables file-based catalogs (its catalogs hold the graph)."""
    return op is not None and fbc_enabled(ci_data(op))


def semver_mode(op: Optional[Operator]) -> bool:
    """True when the operator's ci.yaml sets ``updateGraph: semver-mode``."""
    return op is not None and update_mode(op) == "semver-mode"


def fact_pos(f: BundleFacts, which: str = "replaces") -> tuple[str, int, int]:
    """(path, line, column) of a bundle's spec.replaces (``which="replaces"``, when it has one), else of its CSV or annotations."""
    p = f.replaces_pos if which == "replaces" and f.replaces_pos is not None else (f.csv_pos or f.annotations_pos)
    if p is None:
        return f.rel, 1, 1
    return p.path, p.line, p.column


def few(names: Sequence[str], n: int = 6) -> str:
    """The first ``n`` names, then how many more."""
    if not names:
        return "none"
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def channels_of(facts: Iterable[BundleFacts]) -> dict[str, list[BundleFacts]]:
    """channel -> [facts of the bundles that list it], in the facts' order."""
    chans: dict[str, list[BundleFacts]] = {}
    for f in facts:
        for c in f.channels:
            chans.setdefault(c, []).append(f)
    return chans


def graph_operators(repo: Repository) -> Iterator[tuple[str, Optional[Operator], list[BundleFacts], bool]]:
    """(name, Operator or None, [facts], explicit) of each replaces-mode operator of the slice whose
    graph the bundle-graph rules judge: not FBC (its catalogs hold the graph), not
    ``updateGraph: semver-mode`` (edges follow version order: no dangling bundles, no loops), with
    a checked bundle; ``explicit``: its ci.yaml sets ``updateGraph``."""
    for name, (op, facts) in operators(repo).items():
        if fbc_operator(op):
            continue
        if semver_mode(op):
            continue
        if not any(f.checked for f in facts):
            continue
        yield name, op, facts, explicit_mode(op)


# channel_graphs' result: ({channel: (Channel, cycles)}, lenient, in_cycle)
_Graphs = tuple[dict[str, tuple[Channel, list[Any]]], set[str], set[str]]

_GRAPHS: dict[tuple[tuple[int, ...], bool], tuple[list[BundleFacts], _Graphs]] = {}  # a local cache: the last few operators' channel graphs (upgrade-graph-loop, then dangling-bundle)


def channel_graphs(facts: Sequence[BundleFacts], explicit: bool) -> _Graphs:
    """``({channel: (Channel, cycles)}, lenient, in_cycle)`` of an operator's bundles, by channel
    name: each channel's graph of replaces / skips / skipRange edges and its cycles; ``lenient``:
    the channels without a single edge when ci.yaml does not set ``updateGraph`` (their bundles
    were never meant to form a replaces chain); ``in_cycle``: the bundles in some cycle."""
    key = (tuple(id(f) for f in facts), explicit)
    hit = _GRAPHS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], facts)):
        return hit[1]
    graphs: dict[str, tuple[Channel, list[Any]]] = {}
    lenient: set[str] = set()
    in_cycle: set[str] = set()
    channels = channels_of(facts)
    for cname in sorted(channels):
        ch = Channel(cname, channels[cname])
        cycles = ch.cycles()
        graphs[cname] = (ch, cycles)
        if not explicit and not ch.edges:
            lenient.add(cname)
        in_cycle.update(r for cyc in cycles for r in cyc)
    if len(_GRAPHS) >= 8:
        _GRAPHS.pop(next(iter(_GRAPHS)))
    _GRAPHS[key] = (list(facts), (graphs, lenient, in_cycle))
    return graphs, lenient, in_cycle


SEMVER_NOTE = " (in this semver-mode operator opm ignores spec.replaces: upgrade edges follow version order)"


def chain_text(f: BundleFacts, facts: Iterable[BundleFacts]) -> str:
    """" Channel '<its first channel>': <the replaces chain to that channel's head>." for a
    finding's detail; "" for a bundle in no channel."""
    c = f.channels[0] if f.channels else None
    if c is None:
        return ""
    return f" Channel '{c}': {Channel(c, channels_of(facts)[c]).chain_text()}."
