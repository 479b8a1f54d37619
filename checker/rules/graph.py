"""The upgrade graph of a catalog repository's operators, from BundleFacts only.

Built per operator and channel from each bundle's `spec.replaces`, `spec.skips` and
`olm.skipRange` (ranges in blang/semver syntax, as OLM reads them). Like the catalog's CI:
the channel head is the bundle with the highest version; operators whose ci.yaml says
`updateGraph: semver-mode` get their edges from version order (so no dangling bundles or
loops are possible), and FBC operators (`fbc.enabled: true`) get theirs from the catalogs
(checked by `fbc-schema`), so the bundle-graph rules leave them alone.
"""
from __future__ import annotations

from ..blangsemver import check_range, parse_tolerant, range_fn, SemverError
from ..catalogs import ci_data, fbc_enabled
from ..nodes import Scalar
from ..versions import vkey
from . import check, define, finding

CATEGORY = "catalog"

define("replaces-missing", "error", "spec.replaces names the bundle itself or a version not in the repository", category=CATEGORY, explanation="""
    What: in a catalog repository, a bundle's `spec.replaces` must name the CSV (metadata.name)
    of another bundle of the same operator that is in the repository (checked offline,
    without asking any index).

    Why: the catalog builder refuses a bundle that replaces a CSV it does not have (the edge
    leads nowhere), and a bundle replacing itself is an upgrade loop.

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

define("replaces-ocp-narrower", "error", "The replaced bundle is published to fewer OpenShift releases than the new one", category=CATEGORY, explanation="""
    What: the bundle that `spec.replaces` names is published to fewer OpenShift catalogs
    (its `com.redhat.openshift.versions`) than the new bundle. The releases are limited to
    the catalogs the repository builds (its `catalogs/v4.X` directories) when it has them.

    Why: in a catalog the replaced bundle is not in, the new bundle's `replaces` edge points
    at nothing: the catalog's CI refuses the pull request, and had it been built, clusters on
    those releases would see an incomplete upgrade graph.

    Fix: widen the replaced bundle's range or narrow the new one so the new range is inside
    the old one (the CI's advice: align the label with the replaced bundle's).

    Bad:  1.0.0 labelled "v4.14", 1.1.0 (replaces 1.0.0) labelled "v4.12"
    Good: both labelled "v4.12", or 1.1.0 labelled "v4.14"
    """)

define("dangling-bundle", "error", "A bundle nothing replaces or skips and that is not its channel's head", category=CATEGORY, explanation="""
    What: in a channel (replaces mode), a bundle that no other bundle of the channel
    replaces, skips or covers with its `olm.skipRange`, and that is not the channel head (the
    highest version): nothing upgrades from it.

    Not reported for `updateGraph: semver-mode` operators (edges follow version order), for
    FBC operators (the catalogs hold the graph: `fbc-schema`), nor for a channel without a
    single replaces/skips/skipRange edge in an operator whose ci.yaml does not set
    `updateGraph` (the documented default, semver-mode, is what such bundles rely on).

    Why: clusters that installed it are stuck on it forever; the catalog's CI fails such a
    channel ("Channel ... has dangling bundles").

    Fix: make the next bundle replace it (or list it in `skips`, or cover it with
    `olm.skipRange`), or move it to a channel of its own.

    Bad:  1.0.0 <- 1.1.0 <- 1.3.0 (head) and 1.2.0 replaces 1.1.0 too
    Good: 1.0.0 <- 1.1.0 <- 1.2.0 <- 1.3.0 (head)
    """)

define("upgrade-graph-loop", "error", "replaces / skips / skipRange form a cycle", category=CATEGORY, explanation="""
    What: following `replaces`, `skips` and `olm.skipRange` edges inside a channel leads back
    to a bundle already visited. The message prints the cycle and names the edge that points
    from a newer to an older version.

    Why: OLM cannot pick an upgrade target in a cycle, and the catalog's CI refuses it
    ("Upgrade graph loop detected"). A cycle closed by an `olm.skipRange` that covers newer
    versions (e.g. `>2.5.3` on 2.6.0) passes the CI, which ignores skipRange, but makes OLM
    see the older bundle as an upgrade of the newer one.

    Fix: edges go from older to newer versions only; remove the edge that points back.

    Bad:  1.1.0 replaces 1.0.0 and 1.0.0 replaces 1.1.0
    Good: 1.1.0 replaces 1.0.0 and 1.0.0 replaces nothing
    """)

define("skip-range", "error", "olm.skipRange is not a semver range OLM can parse", category=CATEGORY, mixed=True, explanation="""
    What: the CSV annotation `olm.skipRange` must be a range in the syntax OLM parses
    (github.com/blang/semver): comparators `=`, `!=`, `>`, `>=`, `<`, `<=` with full
    `major.minor.patch` versions, separated by spaces (AND) and `||` (OR), e.g.
    `>=1.0.0 <1.2.0`. No `v`, no `^`/`~`. A hyphen range (`1.0.0 - 2.0.0`) parses but means
    "exactly 1.0.0 and exactly 2.0.0" (it matches nothing): warning.

    Why: OLM parses the range with blang/semver; when that fails the range is ignored, so
    the versions it was meant to cover get no upgrade edge to the bundle (clusters on them
    are not offered it), and newer catalog tooling rejects the range outright.

    Fix: write the range as OLM reads it.

    Bad:
        olm.skipRange: '>=v1.0 <1.2'
    Good:
        olm.skipRange: '>=1.0.0 <1.2.0'
    """)


def _version(f):
    for v in (f.version, f.version_dir):
        if isinstance(v, str):
            try:
                return parse_tolerant(v)
            except SemverError:
                continue
    return None


def _label(f) -> str:
    return f.version or f.version_dir or f.csv_name or f.rel


def _mode(op) -> str:
    ci = ci_data(op)
    if ci is None:
        return "replaces-mode"
    ug = ci.get("updateGraph")
    if isinstance(ug, Scalar) and isinstance(ug.value, str):
        return ug.value
    return "replaces-mode"


def _explicit_mode(op) -> bool:
    ci = ci_data(op) if op is not None else None
    return ci is not None and "updateGraph" in ci


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
    for oc in (repo.extra.get("fbc") or {}).values():
        rel.update(oc.live_releases)
    return rel


@check("repo")
def replaces_rules(repo, ctx):
    live = _live(repo, ctx)
    for name, (op, facts) in _operators(repo).items():
        if op is not None and fbc_enabled(ci_data(op)):
            continue
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
                yield finding("replaces-missing", path, None,
                              f"spec.replaces names this bundle itself ({f.replaces}); a bundle cannot upgrade from itself. Name the previous version's CSV, or remove replaces.",
                              line=line, column=col)
                continue
            old = by_csv.get(f.replaces)
            if old is None:
                near = sorted((g for g in facts if g.csv_name and g is not f and _version(g) is not None and _version(f) is not None
                               and _version(g).key() < _version(f).key()), key=lambda g: _version(g).key())
                hint = f" The closest older bundle in the repository is {near[-1].csv_name}." if near else ""
                named = [g for g in facts if g.csv_name and f.replaces.lstrip("v") in (g.version, g.version_dir)]
                if named:
                    hint = f" spec.replaces takes the CSV name (metadata.name), not a version: write {named[0].csv_name}."
                yield finding("replaces-missing", path, None,
                              f"spec.replaces names {f.replaces}, but no bundle of operator '{name}' in the repository has that CSV name "
                              f"(known: {_few(sorted(by_csv))}); the catalog build refuses an edge to a missing bundle.{hint} "
                              f"Name an existing CSV or remove replaces.{graph_of(f)}", line=line, column=col)
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
                yield finding("replaces-ocp-narrower", path, None,
                              f"this bundle ({_label(f)}, label '{f.label or 'none'}') is published to {', '.join(ms)} where the bundle it replaces "
                              f"({f.replaces}, label '{old.label or 'none'}') is not: in those catalogs the upgrade edge points at nothing and the "
                              f"catalog's CI refuses it. Align the ranges: widen {old.version_dir or old.rel}'s com.redhat.openshift.versions, or "
                              f"narrow this one's to the replaced bundle's.{graph_of(f)}", ocp=ms, line=line, column=col)


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
        err = check_range(f.skip_range)
        if err is not None:
            yield finding("skip-range", path, None,
                          f"olm.skipRange '{f.skip_range}' is not a range OLM can parse: {err}. OLM (blang/semver) cannot read it, so the "
                          "range is ignored and the versions it should cover get no upgrade edge to this bundle. Write comparators with "
                          "full versions, e.g. '>=1.0.0 <1.2.0' (OR with '||').", line=line, column=col)
        elif " - " in f.skip_range:
            yield finding("skip-range", path, None,
                          f"olm.skipRange '{f.skip_range}' looks like a hyphen range, but OLM's parser drops the '-' and reads it as "
                          "'exactly one version AND exactly the other', which matches nothing. Write '>=A <=B' instead.",
                          severity="warning", line=line, column=col)


class _Channel:
    def __init__(self, name, members):
        self.name = name
        self.members = members  # facts
        self.edges = {}  # from fact rel -> set of to fact rels (upgrade direction: old -> new)
        self.kinds = {}  # (from, to) -> "replaces" | "skips" | "skipRange"
        vers = [(_version(f), f) for f in members]
        known = [(v, f) for v, f in vers if v is not None]
        self.head = max(known, key=lambda t: t[0].key())[1] if known else None
        by_csv = {f.csv_name: f for f in members if f.csv_name}
        for f in members:
            targets = []
            if f.replaces and f.replaces in by_csv:
                targets.append((by_csv[f.replaces], "replaces"))
            for s, _p in f.skips:
                if s in by_csv:
                    targets.append((by_csv[s], "skips"))
            if f.skip_range:
                rf = range_fn(f.skip_range)
                if rf is not None:
                    for v, g in known:
                        if g is not f and rf(v):
                            targets.append((g, "skipRange"))
            for g, kind in targets:
                self.edges.setdefault(g.rel, set()).add(f.rel)
                self.kinds.setdefault((g.rel, f.rel), kind)
        self.by_rel = {f.rel: f for f in members}

    def chain_text(self, limit=10) -> str:
        """The replaces chain ending at the head, oldest first: '1.0.0 -> 1.1.0 -> 1.2.0 (head)'."""
        if self.head is None:
            return "(no head)"
        by_csv = {f.csv_name: f for f in self.members if f.csv_name}
        out, seen, cur = [], set(), self.head
        while cur is not None and cur.rel not in seen:
            seen.add(cur.rel)
            out.append(_label(cur))
            cur = by_csv.get(cur.replaces) if cur.replaces else None
        out.reverse()
        if len(out) > limit:
            out = out[:2] + ["…"] + out[-(limit - 3):]
        return " -> ".join(out) + " (head)"

    def cycles(self) -> list:
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
            start = min(comp, key=lambda r: (_version(self.by_rel[r]).key() if _version(self.by_rel[r]) else (), r))
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
        for cname in sorted(channels):
            ch = _Channel(cname, channels[cname])
            reported = set()
            for cyc in ch.cycles():
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
                        if back is None or (cand[1].checked and not back[1].checked):
                            back = cand
                if back is not None and back[1].checked:
                    newer, older, kind = back
                    p = older.replaces_pos if kind == "replaces" else (older.skip_range_pos if kind == "skipRange" else
                                                                        next((q for n, q in older.skips if n == newer.csv_name), None))
                    p = p or older.csv_pos or older.annotations_pos
                    how = {"replaces": f"replaces {newer.csv_name}", "skips": f"skips {newer.csv_name}",
                           "skipRange": f"has an olm.skipRange ('{older.skip_range}') that covers {_label(newer)}"}[kind]
                    fix = f"{_label(older)} {how}, a newer version, which makes an upgrade edge point back; remove it (edges go from older to newer versions)."
                else:
                    first = next(m for m in members if m.checked)
                    p = first.replaces_pos or first.csv_pos or first.annotations_pos
                    fix = "Upgrade edges must go from older to newer versions: remove the edge that points back."
                path, line, col = (p.path, p.line, p.column) if p else (members[0].rel, 1, 1)
                kinds = {ch.kinds.get((a, b), "replaces") for a, b in zip(cyc, cyc[1:])}
                why = ("OLM may offer the older version as an upgrade of the newer one (a downgrade) and cannot order the channel; "
                       "the catalog's CI checks only replaces and skips, so it lets this through" if "skipRange" in kinds else
                       "OLM cannot choose an upgrade in a cycle and the catalog's CI refuses it")
                yield finding("upgrade-graph-loop", path, None,
                              f"the upgrade graph of channel '{cname}' loops: {text} (an arrow means 'upgrades to', from replaces, skips and "
                              f"olm.skipRange). {why}. {fix}",
                              line=line, column=col)
            if ch.head is None:
                continue
            if not explicit and not ch.edges:
                # no updateGraph in ci.yaml and not one replaces/skips/skipRange edge in the
                # channel: the documented default (semver-mode) is what the bundles rely on
                continue
            in_cycle = {r for cyc in ch.cycles() for r in cyc}
            for f in ch.members:
                if not f.checked or f is ch.head or f.rel in in_cycle:
                    continue
                if ch.edges.get(f.rel):
                    continue
                path, line, col = _pos(f, "csv")
                yield finding("dangling-bundle", path, None,
                              f"{_label(f)} is dangling in channel '{cname}': no bundle of the channel replaces, skips or skipRange-covers it, and "
                              f"it is not the head ({_label(ch.head)}), so clusters that install it can never upgrade. Channel graph: "
                              f"{ch.chain_text()}. Make a newer bundle replace or skip {f.csv_name or _label(f)}, or move it to its own channel.",
                              line=line, column=col)
