"""The upgrade graph of a catalog repository's operators, from BundleFacts only.

Built per operator and channel from each bundle's `spec.replaces`, `spec.skips` and
`olm.skipRange` (ranges in blang/semver syntax, as OLM reads them). Each OpenShift release's
catalog holds the bundles published to it and has its own channels (``release_groups``): there
the channel head is the bundle with the highest version, and reachability follows what opm's
replaces-mode index build does (each channel walks `replaces` from its head across channels:
``_opm_channels``). The community CI's checks build one graph per channel from every bundle of
the repository: the findings say when that view refuses too.
Operators whose ci.yaml says `updateGraph: semver-mode` get their edges from version order
(so no dangling bundles or loops are possible), and FBC operators (`fbc.enabled: true`) get
theirs from the catalogs (checked by `fbc-schema`), so the bundle-graph rules leave them
alone. The package's default channel (a `bundle-annotations` finding) is checked here too:
it needs every bundle of the operator.
"""
from __future__ import annotations

from ..blangsemver import check_range, npm_spec_contains
from ..catalogs import ci_data, fbc_enabled
# the graph model, shared with `olm-check graph` and the Action's summary
from ..upgrade_graph import Channel as _Channel, explicit_mode as _explicit_mode, label_of as _label, \
    opm_channels as _opm_channels, opm_stranded, update_mode as _mode, version_of as _version, walk_text as _walk_text
from ..model import REGISTRY_V1
from ..versions import release_ranges as _ranges
from ..versions import clip, vkey
from . import check, define, finding, refusal

OPM_LOAD = "https://github.com/operator-framework/operator-registry/blob/v1.60.0/pkg/sqlite/load.go"
OPM_MODEL = "https://github.com/operator-framework/operator-registry/blob/master/alpha/model/model.go"
OLM_SOURCE = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/registry/resolver/source_registry.go"
_CI = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/"
CI_COMMON_BUNDLE = _CI + "common/bundle.py"
CI_COMMUNITY_BUNDLE = _CI + "community/bundle.py"
CI_COMMUNITY_OPERATOR = _CI + "community/operator.py"

CATEGORY = "catalog"

define("replaces-missing", "error", "spec.replaces names the bundle itself or a version not in the repository", category=CATEGORY, refused_by=[
    refusal("catalog-ci", "the static check check_replaces_availability fails a bundle that replaces itself or a version the "
            "repository does not have (in every update mode)", CI_COMMON_BUNDLE),
    refusal("opm", "`opm index add` (replaces mode) refuses a channel whose replaces chain reaches a missing bundle "
            "(\"replaces nonexistent bundle\")", OPM_LOAD),
], explanation="""
    What: in a catalog repository, a bundle's `spec.replaces` must name the CSV (metadata.name)
    of another bundle of the same operator that is in the repository (checked offline,
    without asking any index).

    Why: in replaces mode opm walks each channel's replaces chain from its head and refuses a
    chain that reaches a missing bundle ("replaces nonexistent bundle"); the catalog's CI
    (static check `check_replaces_availability`) refuses a bundle that replaces itself or a
    version the repository does not have. The CI runs that check for `updateGraph:
    semver-mode` operators too, although opm ignores `replaces` there (edges follow version
    order): the finding stays an error there, and its message says so.

    Fix: write the exact CSV name of the previous version (`<package>.v<version>`), or
    remove `replaces` for the first bundle of a channel.

    Bad:
        spec:
          version: 1.1.0
          replaces: foo.v1.0.9      # no such bundle
    Good:
        spec:
          version: 1.1.0
          replaces: foo.v1.0.0
    """)

define("replaces-ocp-narrower", "error", "The replaced bundle is published to fewer OpenShift releases than the new one", category=CATEGORY, refused_by=[
    refusal("catalog-ci", "the static check check_replaces_availability fails a bundle published to supported OpenShift "
            "releases its replaced bundle is not published to", CI_COMMON_BUNDLE),
    refusal("opm", "in those releases' catalogs the replaces chain reaches a bundle the catalog lacks, which `opm index add` "
            "refuses (replaces mode)", OPM_LOAD),
], explanation="""
    What: the bundle that `spec.replaces` names is published to fewer OpenShift catalogs
    (its `com.redhat.openshift.versions`) than the new bundle. The releases are limited to
    the catalogs the repository builds (its `catalogs/v4.X` directories) when it has them.

    Why: the catalog's CI (static check `check_replaces_availability`, for every update
    mode) fails a bundle published to supported releases its replaced bundle is not in; in
    replaces mode, in those releases' catalogs the replaces chain reaches a bundle the
    catalog lacks, which opm refuses.

    Fix: widen the replaced bundle's range or narrow the new one so the new range is inside
    the old one (the CI's advice: align the label with the replaced bundle's).

    Bad:  1.0.0 labelled "v4.14", 1.1.0 (replaces 1.0.0) labelled "v4.12"
    Good: both labelled "v4.12", or 1.1.0 labelled "v4.14"
    """)

define("dangling-bundle", "error", "A bundle nothing replaces or skips and that is not its channel's head", category=CATEGORY, refused_by=[
    refusal("olm-upgrade", "opm puts in a channel only its head, the bundles its replaces chain reaches and the bundles they "
            "skip; OLM offers an upgrade only from a bundle a channel entry replaces, skips or skipRange-covers, so none is "
            "ever offered", OPM_LOAD),
    refusal("catalog-ci", "the static check check_dangling_bundles fails a channel with dangling bundles", CI_COMMUNITY_BUNDLE),
], explanation="""
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
    """)

define("upgrade-graph-loop", "error", "replaces / skips / skipRange form a cycle", category=CATEGORY, mixed=True, refused_by=[
    refusal("opm", "`opm index add` refuses a replaces cycle (\"Cycle detected\")", OPM_LOAD),
    refusal("catalog-ci", "the static check check_upgrade_graph_loop fails a loop through replaces, skips and the skipRange "
            "edges its npm-style range parser sees", CI_COMMUNITY_OPERATOR),
], explanation="""
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
    """)

define("skip-range", "error", "olm.skipRange is not a semver range OLM can parse", category=CATEGORY, mixed=True, refused_by=[
    refusal("opm", "opm v1.69.0 and later refuse a bundle whose skipRange blang/semver cannot parse (`opm validate`, rendering "
            "and serving a catalog: \"invalid skipRange\")", OPM_MODEL),
    refusal("olm-upgrade", "OLM drops a skipRange it cannot parse, so the versions it was to cover get no upgrade edge",
            OLM_SOURCE),
], explanation="""
    What: the CSV annotation `olm.skipRange` must be a range in the syntax OLM parses
    (github.com/blang/semver v4): comparators `=`, `!=`, `>`, `>=`, `<`, `<=` with full
    `major.minor.patch` versions, separated by spaces (AND) and `||` (OR), e.g.
    `>=1.0.0 <1.2.0`. No `v` (`<v1.2.0` reads as the comparator `<v`), no `^`/`~`. A hyphen
    range (`1.0.0 - 2.0.0`) parses but means "exactly 1.0.0 and exactly 2.0.0" (it matches
    nothing): warning.

    An empty `olm.skipRange: ''` is the same as none: opm validates only a non-empty range and
    OLM reads an empty one as no range: info.

    Why: OLM parses the range with blang/semver and silently drops one it cannot parse, so
    the versions it was meant to cover get no upgrade edge to the bundle (in a semver-mode
    operator the version-order edges remain; only the skips are lost); opm v1.69.0 and later
    refuse it outright (operator-registry alpha/model/model.go, commit 1ead90f3 of
    2026-05-20, first in v1.69.0: `opm validate` and catalog rendering fail with "invalid
    skipRange"), so a catalog holding it can no longer be built with current opm.

    Fix: write the range as OLM reads it.

    Bad:
        olm.skipRange: '<v1.2.0'
    Good:
        olm.skipRange: '<1.2.0'
    """)

define("upgrade-graph-unverified", "info", "A bundle checked without its operator: its upgrade edges are not verified",
       category=CATEGORY, explanation="""
    What: a bundle that is not in `operators/<name>/<version>/` of a catalog repository (a
    bundle directory on its own) declares upgrade edges (`spec.replaces`, `spec.skips`,
    `olm.skipRange`). olm-check has no other bundle of its operator to compare them with, so
    `replaces-missing`, `dangling-bundle` and `upgrade-graph-loop` cannot be decided: it
    says so here, once per bundle, instead of guessing. Information only: nothing refuses it.

    Why: a bundle is checked with its operator around it (the operator's other bundles, its
    ci.yaml and catalogs), found by walking up to `operators/<name>/`; without one, a missing
    replaced bundle or a loop would go unnoticed until the catalog is built.

    Fix: nothing to fix in the bundle; check it inside its catalog repository (its directory
    at `operators/<name>/<version>/`) to have its upgrade graph checked.

    Bad:
        bundle/manifests/foo.clusterserviceversion.yaml (no operators/foo/ around it):
          replaces: foo.v1.0.0
    Good:
        operators/foo/1.1.0/manifests/foo.clusterserviceversion.yaml:
          replaces: foo.v1.0.0
    """)


@check("repo")
def upgrade_graph_unverified(repo, ctx):
    for f in repo.facts:
        if not f.checked or f.operator is not None:
            continue
        edges = ([f"spec.replaces {f.replaces}"] if f.replaces else []) + \
                ([f"spec.skips {', '.join(n for n, _p in f.skips)}"] if f.skips else []) + \
                ([f"olm.skipRange '{f.skip_range}'"] if f.skip_range else [])
        if not edges:
            continue
        p = f.replaces_pos if f.replaces else (f.skips[0][1] if f.skips else f.skip_range_pos)
        path, line, col = (p.path, p.line, p.column) if p else (f.rel, 1, 1)
        listed = "; ".join(edges)
        yield finding("upgrade-graph-unverified", path, None,
                      f"the upgrade edges of this bundle ({clip(listed, 70)}) are not verified: it is checked without its operator",
                      line=line, column=col,
                      detail=f"{'Its upgrade edges: ' + listed + '. ' if len(listed) > 70 else ''}The bundle is checked on its own, "
                      "not in operators/<name>/<version>/ of a catalog repository, so its edges are not compared with other bundles "
                      "of its operator: whether the bundles they name exist, and whether the graph dangles or loops, is not verified. "
                      "Check it at operators/<name>/<version>/ of its catalog repository to have them checked.")


def _operators(repo):
    """operator name -> (Operator, [facts])"""
    by = {}
    for f in repo.facts:
        if f.operator:
            by.setdefault(f.operator, []).append(f)
    return {name: (repo.operators.get(name), fs) for name, fs in sorted(by.items())}


def _pos(f, which="replaces"):
    p = f.replaces_pos if which == "replaces" and f.replaces_pos is not None else (f.csv_pos or f.annotations_pos)
    if p is None:
        return f.rel, 1, 1
    return p.path, p.line, p.column


def _live(repo, ctx) -> set:
    rel = set()
    for oc in repo.fbc.values():
        rel.update(oc.live_releases)
    return rel


@check("repo")
def replaces_rules(repo, ctx):
    live = _live(repo, ctx)
    for name, (op, facts) in _operators(repo).items():
        if op is not None and fbc_enabled(ci_data(op)):
            continue
        semver = op is not None and _mode(op) == "semver-mode"
        by_csv = {f.csv_name: f for f in facts if f.csv_name}
        chans = {}
        for g in facts:
            for c in g.channels:
                chans.setdefault(c, []).append(g)

        def graph_of(f):
            c = f.channels[0] if f.channels else None
            if c is None:
                return ""
            return f" Channel '{c}': {_Channel(c, chans[c]).chain_text()}."

        for f in facts:
            if not f.checked or not f.replaces:
                continue
            path, line, col = _pos(f)
            if f.replaces == f.csv_name:
                yield finding("replaces-missing", path, None, f"spec.replaces names this bundle itself ({clip(f.replaces)})",
                              line=line, column=col,
                              detail=f"A bundle cannot upgrade from itself{_SEMVER_NOTE if semver else ''} and the catalog's CI "
                              "refuses it. Name the previous version's CSV, or remove replaces.")
                continue
            old = by_csv.get(f.replaces)
            if old is None:
                near = sorted((g for g in facts if g.csv_name and g is not f and _version(g) is not None and _version(f) is not None
                               and _version(g).key() < _version(f).key()), key=lambda g: _version(g).key())
                hint = f" The closest older bundle in the repository is {near[-1].csv_name}." if near else ""
                named = [g for g in facts if g.csv_name and f.replaces.lstrip("v") in (g.version, g.version_dir)]
                if named:
                    hint = f" spec.replaces takes the CSV name (metadata.name), not a version: write {named[0].csv_name}."
                who = (f"{_SEMVER_NOTE.strip(' (),')}, but the catalog's CI still refuses a replaces naming a version the "
                       "repository does not have" if semver else
                       "opm refuses to build a channel whose replaces chain reaches a missing bundle, and the catalog's CI refuses it")
                yield finding("replaces-missing", path, None,
                              f"spec.replaces names {clip(f.replaces)}, but no bundle of operator '{name}' in the repository has that CSV name",
                              line=line, column=col,
                              detail=f"The operator's CSVs: {_few(sorted(by_csv))}; {who}.{hint} "
                              f"Name an existing CSV or remove replaces.{'' if semver else graph_of(f)}")
                continue
            new_rel, old_rel = set(f.ocp_versions), set(old.ocp_versions)
            missing = new_rel - old_rel
            if live:
                missing &= live
                if not (old_rel & live):
                    # the replaced bundle is in none of the catalogs built today: the new one is
                    # the tail of the chain there, which opm accepts (historical bundles)
                    missing = set()
            if missing:
                ms = sorted(missing, key=vkey)
                effect = ("the catalog's CI refuses it (this semver-mode operator's catalogs ignore replaces, but the CI compares the ranges)"
                          if semver else "in those catalogs the replaces chain reaches a bundle the catalog lacks, which opm refuses, and the "
                          "catalog's CI refuses it")
                yield finding("replaces-ocp-narrower", path, None,
                              f"this bundle ({clip(_label(f), 30)}) is published to OpenShift {_ranges(ms)}, where the bundle it "
                              f"replaces ({clip(f.replaces, 40)}) is not", ocp=ms, line=line, column=col,
                              detail=f"Their labels: this one's '{f.label or 'none'}', the replaced bundle's '{old.label or 'none'}'; "
                              f"{effect}. Align the ranges: widen {old.version_dir or old.rel}'s com.redhat.openshift.versions, or "
                              f"narrow this one's to the replaced bundle's.{graph_of(f)}")


_SEMVER_NOTE = " (in this semver-mode operator opm ignores spec.replaces: upgrade edges follow version order)"


def _few(names, n=6) -> str:
    if not names:
        return "none"
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


@check("repo")
def skip_range(repo, ctx):
    for f in repo.facts:
        if not f.checked or f.skip_range is None:
            continue
        p = f.skip_range_pos
        path, line, col = (p.path, p.line, p.column) if p else (f.rel, 1, 1)
        if not f.skip_range.strip():
            # opm validates only a non-empty skipRange (alpha/model/model.go: `if b.SkipRange != ""`) and
            # OLM reads an empty one as none: the same as no annotation
            yield finding("skip-range", path, None, "olm.skipRange is empty, the same as no skipRange", severity="info",
                          kind="empty", line=line, column=col,
                          detail="opm validates only a non-empty skipRange and OLM reads an empty one as none, so nothing "
                          "refuses it and no version skips to this bundle through it. Remove the annotation, or write the "
                          "range this bundle should cover, e.g. '>=1.0.0 <1.2.0'.")
            continue
        err = check_range(f.skip_range)
        if err is not None:
            op = repo.operators.get(f.operator) if f.operator else None
            semver = op is not None and _mode(op) == "semver-mode"
            lost = ("In this semver-mode operator the edges from version order remain; what is lost are the skips: "
                    "the older versions the range was to cover cannot update straight to this bundle. " if semver else
                    "What is lost are the skips: the versions the range was to cover get no edge to this bundle, and "
                    "only spec.replaces (and spec.skips) remain. ")
            yield finding("skip-range", path, None, f"olm.skipRange '{clip(f.skip_range, 40)}' is not a range OLM can parse: {err}",
                          line=line, column=col, kind="unparsable",
                          detail="OLM (blang/semver) cannot read it and drops it, and opm v1.69.0 and later refuse a "
                          "catalog holding it in 'opm validate' (which the catalog pipeline runs, with opm v1.71.0) and "
                          "when serving it (\"invalid skipRange\", operator-registry alpha/model/model.go, commit "
                          "1ead90f3). " + lost
                          + "Write comparators with full versions, e.g. '>=1.0.0 <1.2.0' (OR with '||').")
        elif " - " in f.skip_range:
            yield finding("skip-range", path, None,
                          f"olm.skipRange '{clip(f.skip_range)}' is a hyphen range, which OLM reads as matching nothing",
                          severity="warning", line=line, column=col, kind="hyphen",
                          detail="OLM's parser drops the '-' and reads it as 'exactly one version AND exactly the other', which "
                          "matches nothing. Write '>=A <=B' instead.")


@check("repo")
def graph_rules(repo, ctx):
    for name, (op, facts) in _operators(repo).items():
        if op is not None and fbc_enabled(ci_data(op)):
            continue
        mode = _mode(op) if op is not None else "replaces-mode"
        if mode == "semver-mode":
            continue  # edges follow version order: no dangling bundles, no loops
        explicit = _explicit_mode(op)
        if not any(f.checked for f in facts):
            continue
        channels = {}
        for f in facts:
            for c in f.channels:
                channels.setdefault(c, []).append(f)
        lenient, in_cycle, built = set(), set(), {}
        for cname in sorted(channels):
            ch = built[cname] = _Channel(cname, channels[cname])
            reported = set()
            cycles = ch.cycles()
            for cyc in cycles:
                members = [ch.by_rel[r] for r in cyc]
                if not any(m.checked for m in members):
                    continue
                key = frozenset(cyc)
                if key in reported:
                    continue
                reported.add(key)
                text = " -> ".join(_label(ch.by_rel[r]) for r in cyc)
                # the edge that points back: a -> b with b not newer than a, defined by b
                back = None
                for a, b in zip(cyc, cyc[1:]):
                    va, vb = _version(ch.by_rel[a]), _version(ch.by_rel[b])
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
                           "skipRange": f"has an olm.skipRange ('{older.skip_range}') that covers {_label(newer)}"}[kind]
                    fix = f"{_label(older)} {how}, a newer version, which makes an upgrade edge point back; remove it (edges go from older to newer versions)."
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
                if not rels:
                    kind = "ci-only" if ci_sees else ""  # ci-only: refused by community's check only (verdicts.yaml)
                    why, sev = ((f"no release's catalog holds every bundle of it (their releases differ), so opm and OLM never "
                                 f"meet it, but {ci_txt}: its graph spans every bundle of the repository"), "error") if ci_sees else \
                        (("no release's catalog holds every bundle of it, so opm and OLM never meet it, and the community catalog's "
                          "CI, whose npm-style range parser leaves this range's prerelease versions out, does not see it: nothing "
                          "refuses it"), "warning")
                elif "skipRange" not in kinds:
                    kind = ""
                    why, sev = f"opm refuses a replaces cycle in the catalogs of OpenShift {_ranges(rels)}, and {ci_txt}", "error"
                elif ci_sees:
                    kind = ""
                    why, sev = (f"in the catalogs of OpenShift {_ranges(rels)} OLM may offer the older version as an upgrade of the "
                                f"newer one (a downgrade), and {ci_txt}"), "error"
                else:
                    kind = ""
                    why, sev = (f"in the catalogs of OpenShift {_ranges(rels)} OLM may offer the older version as an upgrade of the "
                                "newer one (a downgrade); nothing refuses it: opm checks replaces cycles only, and the catalog's CI, "
                                "whose npm-style range parser leaves this range's prerelease versions out, does not see the loop"), "warning"
                yield finding("upgrade-graph-loop", path, None,
                              f"channel '{clip(cname, 40)}' loops: {clip(text, 80)}",
                              severity=sev, line=line, column=col, ocp=rels, kind=kind,
                              detail=f"{'The loop: ' + text + '. ' if len(text) > 80 else ''}An arrow means 'upgrades to', from "
                              f"replaces, skips and olm.skipRange; {why}. {fix}")
            if not explicit and not ch.edges:
                # no updateGraph in ci.yaml and not one replaces/skips/skipRange edge in the
                # channel: the bundles were never meant to form a replaces chain
                lenient.add(cname)
            in_cycle.update(r for cyc in cycles for r in cyc)
        yield from _dangling(name, facts, channels, lenient, in_cycle, built)


def _ci_range_edge(g, f) -> bool:
    """True when the catalog CI's update graph has the skipRange edge f -> g: it parses g's
    olm.skipRange with semantic_version's NpmSpec and tests f's version
    (operator-pipelines, operator_repo/core.py ``_resolve_skip_range``)."""
    ver = f.version or f.version_dir
    if not g.skip_range or not ver:
        return False
    return npm_spec_contains(ver.lstrip("v"), g.skip_range)


def release_groups(facts) -> list:
    """[(releases, members)]: the bundles each release's catalog holds (the facts whose
    ``ocp_versions`` name it), releases with the same bundles together, oldest first. Each
    release's catalog has its own channels and heads (gates.md "Upgrade graphs are per release
    catalog")."""
    from ..versions import vkey as _vk

    by_rel = {}
    for f in facts:
        for r in f.ocp_versions:
            by_rel.setdefault(r, []).append(f)
    groups = {}
    for r in sorted(by_rel, key=_vk):
        key = frozenset(g.rel for g in by_rel[r])
        groups.setdefault(key, ([], by_rel[r]))[0].append(r)
    return list(groups.values())


def _dangling(name, facts, channels, lenient, in_cycle, built):
    """dangling-bundle, judged in each release's catalog (``release_groups``): a bundle that
    is in no channel opm builds there (``_opm_channels``: not reached by a head's replaces
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
        opm = _opm_channels(members, chans)
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
            heads_of[f.rel] = {c: _walk_text(opm[c][0], mine) for c in f.channels if c in opm}
    # reported on the chain's newest bundle only, whichever bundles are checked: a bundle's
    # findings do not depend on which of its operator's bundles are checked beside it
    for f in facts:
        if not f.checked or f.rel not in where:
            continue
        rels = sorted(set(where[f.rel]), key=vkey)
        chans = ", ".join(f"'{c}'" for c in f.channels)
        head_txt = "; ".join(f"'{c}': {t}" for c, t in heads_of[f.rel].items())
        older = sorted(older_of[f.rel].values(), key=lambda g: (_version(g).key() if _version(g) else (), g.rel))
        tail = (f" The {len(older)} older bundle{'s' if len(older) > 1 else ''} it replaces ({_few([_label(g) for g in older], 4)}) "
                f"{'are' if len(older) > 1 else 'is'} stranded with it." if older else "")
        # the community CI's own view (check_dangling_bundles): per channel, over every bundle of the
        # repository whatever its releases, a bundle that is not the head and has no edge out
        ci = any(f is not built[c].head and not built[c].edges.get(f.rel) for c in f.channels if c in built)
        ci_note = {"check_dangling_bundles": "The community catalog's CI (check_dangling_bundles), which builds one graph "
                   "per channel from every bundle of the repository, fails the channel ('dangling bundles')."} if ci else None
        path, line, col = _pos(f, "csv")
        msg = (f"{clip(_label(f), 40)} is dangling in channel {clip(chans, 40)} on OpenShift {_ranges(rels)}: nothing there "
               "upgrades from it")
        if len(msg) > 150:  # many release runs: the releases are the finding's ocp_versions
            msg = (f"{clip(_label(f), 40)} is dangling in channel {clip(chans, 40)} on {len(rels)} releases ({rels[0]} to "
                   f"{rels[-1]}): nothing there upgrades from it")
        yield finding("dangling-bundle", path, None, msg, line=line, column=col, ocp=rels, kind="ci-dangling" if ci else "",
                      gate_notes=ci_note,
                      detail=f"In the catalogs of OpenShift {_ranges(rels)}, where it is published, it is not the channel's head, and "
                      f"opm follows replaces from each channel head, across channels ({head_txt}). Stranded in a replaces-mode "
                      "channel of a release it is published to, it is an upgrade break whatever the catalog: OLM never offers "
                      f"clusters that installed it an upgrade.{tail} Make a newer bundle of the channel published to "
                      f"those releases replace or skip {f.csv_name or _label(f)}, or cover it with olm.skipRange.")


@check("repo")
def default_channel(repo, ctx):
    """bundle-annotations, package level: in a catalog repository the package's default
    channel is the one its highest-version bundle declares (opm's ``SemverPackageManifest``
    for replaces mode, the newest bundle added for semver mode, and the catalog CI's
    ``Operator.default_channel``), and it must be a channel some bundle of the package is in.
    FBC operators are skipped: their catalogs set the default channel (``fbc-schema``)."""
    for name, (op, facts) in _operators(repo).items():
        if op is not None and fbc_enabled(ci_data(op)):
            continue
        reg = [f for f in facts if f.mediatype in (REGISTRY_V1, None)]
        if not any(f.checked for f in reg):
            continue
        package_channels = sorted({c for f in reg for c in f.channels})
        if not package_channels:
            continue
        declaring = [(v, f) for f in reg if (f.default_channel or "").strip() and (v := _version(f)) is not None]
        decider = max(declaring, key=lambda t: t[0].key())[1] if declaring else None
        for f in reg:
            d = (f.default_channel or "").strip()
            if not f.checked or not d or d in package_channels:
                continue  # an empty default is the bundle rule's; any channel of the package is legal
            p = f.default_channel_pos or f.annotations_pos
            path, line, col = (p.path, p.line, p.column) if p else (f.rel, 1, 1)
            chans = ", ".join(package_channels)
            if f is decider:
                # every bundle of the operator is in sight (the operator is the unit of context):
                # a single bundle here is the operator's only one
                alone = " (it is the operator's only bundle)" if len(reg) == 1 else ""
                yield finding("bundle-annotations", path, None,
                              f"the default channel '{clip(d, 40)}' is not a channel of any bundle of operator '{name}'",
                              line=line, column=col,
                              detail=f"Its channels: {chans}{alone}. This bundle ({_label(f)}) is the package's highest version, so "
                              "its default channel becomes the package's, and opm refuses a package whose default channel does not "
                              f"exist: the catalog build fails. Set it to one of {chans}, or add '{d}' to this bundle's "
                              "operators.operatorframework.io.bundle.channels.v1.")
            else:
                now = f" (today {_label(decider)}'s '{decider.default_channel.strip()}')" if decider is not None else ""
                yield finding("bundle-annotations", path, None,
                              f"the default channel '{clip(d, 40)}' is not a channel of any bundle of operator '{name}'",
                              severity="warning", line=line, column=col,
                              detail=f"Its channels: {chans}. Only the package's highest-version bundle sets the default channel{now}, "
                              "so nothing refuses this one, but it misleads readers and would break the package were this bundle the "
                              f"newest. Set it to one of {chans}.")
