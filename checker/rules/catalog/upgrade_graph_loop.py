"""
What: following `replaces`, `skips` and `olm.skipRange` edges inside a channel leads back
to a bundle already visited. The message prints the cycle and names the edge that points
from a newer to an older version. The finding's releases are those whose catalogs hold
every bundle of the loop; a loop between bundles no single release's catalog holds
together (their labels differ) is met only by the community CI's graph, which spans the
repository (kind `ci-only`).

Why: opm refuses a replaces cycle ("Cycle detected") and the catalog's CI (static check
`check_upgrade_graph_loop`) refuses loops through replaces, skips and skipRange. A cycle
closed by an `olm.skipRange` that covers newer versions (e.g. `>2.5.3` on 2.6.0) makes
OLM see the older bundle as an upgrade of the newer one; it is an error when the CI's
npm-style range parser sees the loop too, and a warning when it does not (prerelease
versions such as `2.6.1-final` fall outside npm ranges): then nothing refuses it.

Fix: edges go from older to newer versions only; remove the edge that points back.

Bad:  1.1.0 replaces 1.0.0 and 1.0.0 replaces 1.1.0
Good: 1.1.0 replaces 1.0.0 and 1.0.0 replaces nothing
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...upgrade_graph import label_of, version_of
from ...upstream.blangsemver import npm_spec_contains
from ...versions import clip, release_ranges, vkey
from .. import define, refusal
from ..lib.catalog import channel_graphs, graph_operators

OPM_LOAD = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/sqlite/load.go"
CI_COMMUNITY_OPERATOR = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/community/operator.py"

RULE = define("upgrade-graph-loop", "replaces / skips / skipRange form a cycle", __doc__, category="catalog", refused_by=[
    refusal("opm", "`opm index add` refuses a replaces cycle (\"Cycle detected\")", OPM_LOAD),
    refusal("catalog-ci", "the static check check_upgrade_graph_loop fails a loop through replaces, skips and the skipRange "
            "edges its npm-style range parser sees", CI_COMMUNITY_OPERATOR),
])


@RULE.check(scope="repo")
def upgrade_graph_loop(repo: Repository, ctx: Context):
    for _name, _op, facts, explicit in graph_operators(repo):
        graphs, _lenient, _in_cycle = channel_graphs(facts, explicit)
        for cname, (ch, cycles) in graphs.items():
            reported = set()
            for cyc in cycles:
                members = [ch.by_rel[r] for r in cyc]
                if not any(m.checked for m in members):
                    continue
                key = frozenset(cyc)
                if key in reported:
                    continue
                reported.add(key)
                text = " -> ".join(label_of(ch.by_rel[r]) for r in cyc)
                # the edge that points back: a -> b with b not newer than a, defined by b
                back = None
                for a, b in zip(cyc, cyc[1:]):
                    va, vb = version_of(ch.by_rel[a]), version_of(ch.by_rel[b])
                    if va is not None and vb is not None and vb.key() <= va.key():
                        cand = (ch.by_rel[a], ch.by_rel[b], ch.kinds.get((a, b), "replaces"))
                        if back is None:
                            back = cand
                # the loop is reported on one bundle whichever are checked (the one whose edge
                # points back, else the first of the loop): the same finding however it is run
                owner = back[1] if back is not None else members[0]
                if not owner.checked:
                    continue
                if back is not None:
                    newer, older, kind = back
                    p = older.replaces_pos if kind == "replaces" else (older.skip_range_pos if kind == "skipRange" else
                                                                        next((q for n, q in older.skips if n == newer.csv_name), None))
                    p = p or older.csv_pos or older.annotations_pos
                    how = {"replaces": f"replaces {newer.csv_name}", "skips": f"skips {newer.csv_name}",
                           "skipRange": f"has an olm.skipRange ('{older.skip_range}') that covers {label_of(newer)}"}[kind]
                    fix = f"{label_of(older)} {how}, a newer version, which makes an upgrade edge point back; remove it (edges go from older to newer versions)."
                else:
                    first = members[0]
                    p = first.replaces_pos or first.csv_pos or first.annotations_pos
                    fix = "Upgrade edges must go from older to newer versions: remove the edge that points back."
                path, line, col = (p.path, p.line, p.column) if p else (members[0].rel, 1, 1)
                kinds = {ch.kinds.get((a, b), "replaces") for a, b in zip(cyc, cyc[1:])}
                # the catalog's CI reads olm.skipRange with an npm-style parser: it sees the loop only
                # when that parser also puts every skipRange edge of the cycle in the graph
                ci_sees = all(ch.kinds.get((a, b), "replaces") != "skipRange" or _ci_range_edge(ch.by_rel[b], ch.by_rel[a])
                              for a, b in zip(cyc, cyc[1:]))
                # each release's catalog has its own channels: the loop is in the catalogs of the
                # releases every bundle of it is published to; the community CI's graph spans the repository
                rels = sorted(set.intersection(*(set(m.ocp_versions) for m in members)), key=vkey)
                ci_txt = "the community catalog's CI (check_upgrade_graph_loop, community suite) refuses the loop"
                # the kinds (verdicts.yaml): ci-only, refused by community's check only; unseen-across-releases and
                # unseen-skiprange, refused by nothing (a warning); the default, refused by opm and community's check
                if not rels and ci_sees:
                    kind = "ci-only"
                    why = (f"no release's catalog holds every bundle of it (their releases differ), so opm and OLM never "
                           f"meet it, but {ci_txt}: its graph spans every bundle of the repository")
                elif not rels:
                    kind = "unseen-across-releases"
                    why = ("no release's catalog holds every bundle of it, so opm and OLM never meet it, and the community catalog's "
                           "CI, whose npm-style range parser leaves this range's prerelease versions out, does not see it: nothing "
                           "refuses it")
                elif "skipRange" not in kinds:
                    kind = ""
                    why = f"opm refuses a replaces cycle in the catalogs of OpenShift {release_ranges(rels)}, and {ci_txt}"
                elif ci_sees:
                    kind = ""
                    why = (f"in the catalogs of OpenShift {release_ranges(rels)} OLM may offer the older version as an upgrade of the "
                           f"newer one (a downgrade), and {ci_txt}")
                else:
                    kind = "unseen-skiprange"
                    why = (f"in the catalogs of OpenShift {release_ranges(rels)} OLM may offer the older version as an upgrade of the "
                           "newer one (a downgrade); nothing refuses it: opm checks replaces cycles only, and the catalog's CI, "
                           "whose npm-style range parser leaves this range's prerelease versions out, does not see the loop")
                yield RULE.at(path, None,
                              f"channel '{clip(cname, 40)}' loops: {clip(text, 80)}",
                              line=line, column=col, ocp=rels, kind=kind,
                              detail=f"{'The loop: ' + text + '. ' if len(text) > 80 else ''}An arrow means 'upgrades to', from "
                              f"replaces, skips and olm.skipRange; {why}. {fix}")


def _ci_range_edge(g, f) -> bool:
    """True when the catalog CI's update graph has the skipRange edge f -> g: it parses g's
    olm.skipRange with semantic_version's NpmSpec and tests f's version
    (operator-pipelines, operator_repo/core.py ``_resolve_skip_range``)."""
    ver = f.version or f.version_dir
    if not g.skip_range or not ver:
        return False
    return npm_spec_contains(ver.lstrip("v"), g.skip_range)
