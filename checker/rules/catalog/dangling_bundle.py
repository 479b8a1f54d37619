"""
What: a bundle of a replaces-mode operator that is not a channel head and that no bundle
of the catalog opm builds replaces, skips or covers with its `olm.skipRange`. opm builds
a channel from its head (the highest version among the bundles that list the channel),
the bundles the head's `replaces` chain reaches — across channels: a bundle replaced by
a bundle of another channel's chain joins that channel — and the bundles they `skip`.
A stranded chain is reported once, on its newest bundle, naming the older bundles
stranded with it. Judged in each OpenShift release's catalog, which holds the bundles
published to that release and has its own channels and heads: a bundle pinned to 4.7
(`=v4.7`) is judged in the 4.7 catalog, where it may be the head; the finding names the
releases whose catalogs strand it.

Not reported for `updateGraph: semver-mode` operators (edges follow version order), for
FBC operators (the catalogs hold the graph: `fbc-schema`), nor for a channel without a
single replaces/skips/skipRange edge in an operator whose ci.yaml does not set
`updateGraph` (such bundles were never meant to form a replaces chain).

Why: OLM offers an upgrade only from a bundle that a channel entry replaces, skips or
covers, so clusters that installed it are stuck on it for good: an upgrade break in any
catalog. The community catalog's CI (static check `check_dangling_bundles`, community
suite) also fails the channel ("Channel ... has dangling bundles") when its own
per-channel graph, built from every bundle of the repository, sees it (the detail says
so; kind `ci-dangling`).

Fix: make a newer bundle of the channel replace it (or list it in `skips`, or cover it
with `olm.skipRange`).

Bad:  1.0.0 <- 1.1.0 <- 1.2.0 (head) and 1.1.1 replaces 1.1.0 too
Good: 1.0.0 <- 1.1.0 <- 1.1.1 <- 1.2.0 (head)
"""
from __future__ import annotations

from ...context import Context
from ...model import BundleFacts, Repository
from ...upgrade_graph import label_of, opm_channels, opm_stranded, version_of, walk_text
from ...versions import clip, release_ranges, vkey
from .. import define, refusal
from ..lib.catalog import channel_graphs, fact_pos, few, graph_operators

OPM_LOAD = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/sqlite/load.go"
CI_COMMUNITY_BUNDLE = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/community/bundle.py"

RULE = define("dangling-bundle", "A bundle nothing replaces or skips and that is not its channel's head", __doc__, category="catalog", refused_by=[
    refusal("olm-upgrade", "opm puts in a channel only its head, the bundles its replaces chain reaches and the bundles they "
            "skip; OLM offers an upgrade only from a bundle a channel entry replaces, skips or skipRange-covers, so none is "
            "ever offered", OPM_LOAD),
    refusal("catalog-ci", "the static check check_dangling_bundles fails a channel with dangling bundles", CI_COMMUNITY_BUNDLE),
])


@RULE.check(scope="repo")
def dangling_bundle(repo: Repository, ctx: Context):
    for name, _op, facts, explicit in graph_operators(repo):
        graphs, lenient, in_cycle = channel_graphs(facts, explicit)
        built = {cname: ch for cname, (ch, _cycles) in graphs.items()}
        channels = {cname: ch.members for cname, ch in built.items()}
        yield from _dangling(name, facts, channels, lenient, in_cycle, built)


def release_groups(facts) -> list:
    """[(releases, members)]: the bundles each release's catalog holds (the facts whose
    ``ocp_versions`` name it), releases with the same bundles together, oldest first. Each
    release's catalog has its own channels and heads (gates.md "Upgrade graphs are per release
    catalog")."""
    by_rel: dict[str, list[BundleFacts]] = {}
    for f in facts:
        for r in f.ocp_versions:
            by_rel.setdefault(r, []).append(f)
    groups: dict[frozenset[str], tuple[list[str], list[BundleFacts]]] = {}
    for r in sorted(by_rel, key=vkey):
        key = frozenset(g.rel for g in by_rel[r])
        groups.setdefault(key, ([], by_rel[r]))[0].append(r)
    return list(groups.values())


def _dangling(name, facts, channels, lenient, in_cycle, built):
    """dangling-bundle, judged in each release's catalog (``release_groups``): a bundle that
    is in no channel opm builds there (``opm_channels``: not reached by a head's replaces
    walk nor skipped by a walked bundle) and that no catalog entry of that release covers with
    olm.skipRange: nothing upgrades from it. Reported once per stranded chain, on its newest
    bundle (the older bundles it replaces are stranded with it), naming the releases."""
    where = {}  # rel -> releases where it is the newest bundle of a stranded chain
    older_of = {}  # rel -> {older rel stranded with it}
    heads_of = {}  # rel -> {channel: walk text} of the newest release where it is stranded
    for releases, members in release_groups(facts):
        chans = {}
        for f in members:
            for c in f.channels:
                chans.setdefault(c, []).append(f)
        opm = opm_channels(members, chans)
        stranded = [f for f in opm_stranded(members, opm) if f.rel not in in_cycle and not all(c in lenient for c in f.channels)]
        srels = {f.rel for f in stranded}
        mine = {f.csv_name: f for f in members if f.csv_name}
        below = {}
        for f in stranded:  # the stranded bundles each stranded bundle pulls down with it (its replaces chain)
            chain, seen, cur = [], {f.rel}, mine.get(f.replaces) if f.replaces else None
            while cur is not None and cur.rel in srels and cur.rel not in seen:
                seen.add(cur.rel)
                chain.append(cur)
                cur = mine.get(cur.replaces) if cur.replaces else None
            below[f.rel] = chain
        covered = {g.rel for f in stranded for g in below[f.rel]}
        for f in stranded:
            if f.rel in covered:
                continue
            where.setdefault(f.rel, []).extend(releases)
            older_of.setdefault(f.rel, {})
            for g in below[f.rel]:
                older_of[f.rel][g.rel] = g
            heads_of[f.rel] = {c: walk_text(opm[c][0], mine) for c in f.channels if c in opm}
    # reported on the chain's newest bundle only, whichever bundles are checked: a bundle's
    # findings do not depend on which of its operator's bundles are checked beside it
    for f in facts:
        if not f.checked or f.rel not in where:
            continue
        rels = sorted(set(where[f.rel]), key=vkey)
        chans = ", ".join(f"'{c}'" for c in f.channels)
        head_txt = "; ".join(f"'{c}': {t}" for c, t in heads_of[f.rel].items())
        older = sorted(older_of[f.rel].values(), key=lambda g: (version_of(g).key() if version_of(g) else (), g.rel))
        tail = (f" The {len(older)} older bundle{'s' if len(older) > 1 else ''} it replaces ({few([label_of(g) for g in older], 4)}) "
                f"{'are' if len(older) > 1 else 'is'} stranded with it." if older else "")
        # the community CI's own view (check_dangling_bundles): per channel, over every bundle of the
        # repository whatever its releases, a bundle that is not the head and has no edge out
        ci = any(f is not built[c].head and not built[c].edges.get(f.rel) for c in f.channels if c in built)
        ci_note = {"check_dangling_bundles": "The community catalog's CI (check_dangling_bundles), which builds one graph "
                   "per channel from every bundle of the repository, fails the channel ('dangling bundles')."} if ci else None
        path, line, col = fact_pos(f, "csv")
        msg = (f"{clip(label_of(f), 40)} is dangling in channel {clip(chans, 40)} on OpenShift {release_ranges(rels)}: nothing there "
               "upgrades from it")
        if len(msg) > 150:  # many release runs: the releases are the finding's ocp_versions
            msg = (f"{clip(label_of(f), 40)} is dangling in channel {clip(chans, 40)} on {len(rels)} releases ({rels[0]} to "
                   f"{rels[-1]}): nothing there upgrades from it")
        yield RULE.at(path, None, msg, line=line, column=col, ocp=rels, kind="ci-dangling" if ci else "",
                      gate_notes=ci_note,
                      detail=f"In the catalogs of OpenShift {release_ranges(rels)}, where it is published, it is not the channel's head, and "
                      f"opm follows replaces from each channel head, across channels ({head_txt}). Stranded in a replaces-mode "
                      "channel of a release it is published to, it is an upgrade break whatever the catalog: OLM never offers "
                      f"clusters that installed it an upgrade.{tail} Make a newer bundle of the channel published to "
                      f"those releases replace or skip {f.csv_name or label_of(f)}, or cover it with olm.skipRange.")
