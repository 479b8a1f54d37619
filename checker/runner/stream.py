"""Scheduling a run: operators and bundles as tasks, the result cache, the results kept
small until the report. Calls the core (``checker.engine``) only."""
from __future__ import annotations

import dataclasses

from ..context import Context
from ..engine import BundleResult, check_repo, global_slice, internal, place, repo_files, settle, touched_operators
from ..model import BundleFacts, Repository
from ..rules import load_all


def run_stream(repo: Repository, ctx: Context, jobs: int = 1, cache=None, progress=None) -> list:  # noqa: C901
    """Check a planned repository (``discover.plan``, catalogs not loaded) one operator at a
    time: for each operator, in one of ``jobs`` worker processes (this process when 1), its
    context is read, its bundles are loaded, checked and reduced to ``BundleResult``s one by
    one, and the repository rules run on its facts; then all of it is dropped, so memory
    stays flat however large the catalog. Bundles outside operators/ are tasks of their own,
    and the repository rules run once more, here, on what is outside operators/ (loose files,
    CatalogSources, the change list). ``cache`` (``cache.Cache``) answers unchanged bundles
    without loading them, and unchanged operators without loading their catalogs. Returns
    the settled findings; ``repo.facts`` holds every bundle's facts in ``repo.bundle_refs``
    order (for bundles of operators whose repository rules ran in full, only the fields the
    report reads: ``_light``).

    Repository rules therefore see one operator at a time (as a ``--shard`` does): they must
    compare bundles of the same operator only (``checker.rules`` documents it)."""
    from .workers import map_tasks

    load_all()
    ctx = dataclasses.replace(ctx, repo=repo)
    findings = list(repo.problems)
    checked = set(repo.checked) if repo.checked else None
    refs = repo.bundle_refs
    results: list = [None] * len(refs)
    canon: dict = {}  # one shared copy of each release list and path (see _compact)
    groups: dict = {}  # operator directory (None: bundles outside operators/) -> its bundles
    for i, ref in enumerate(refs):
        groups.setdefault(ref.operator_dir, []).append((i, ref, checked is None or ref.rel in checked))
    tasks = []
    deferred = cache is not None and cache.defer(repo, ctx, jobs)
    if cache is not None and not deferred:
        cache.prepare(groups, repo, ctx, jobs)
    # operators whose bundles' full facts the repository rules run here need (global_slice)
    whole = touched_operators(repo) if repo.changes is not None else set()

    def lighten(members: list) -> None:
        for i, _, _ in members:
            results[i] = _light(results[i])

    for key, members in groups.items():
        hits = []
        for i, ref, chk in members:
            hit = cache.get(ref, chk, repo, ctx) if cache is not None and not deferred else None
            results[i] = hit = _compact(hit, canon) if hit is not None else None
            hits.append(hit)
        if key is None:
            tasks += [("bundle", (i, ref, chk)) for (i, ref, chk), hit in zip(members, hits) if hit is None]
            continue
        if cache is not None:
            if all(h is not None for h in hits):
                got = cache.get_operator(cache.operator_keys[key])
                if got is not None:
                    findings += got
                    if key not in whole:
                        lighten(members)
                    continue
        tasks.append(("operator", (key, [(i, ref, chk, hit) for (i, ref, chk), hit in zip(members, hits)])))
    total = len(refs)
    done = total - sum(1 for r in results if r is None)
    if progress is not None:
        progress(done, total)
    # the biggest operators first, so that no worker is left with one at the end
    tasks.sort(key=lambda t: -sum(1 for it in t[1][1] if it[3] is None) if t[0] == "operator" else -1)
    if deferred:
        cache.misses += total
    for _kind, triples, repo_findings, key, made in map_tasks(tasks, repo, ctx, jobs, cache if deferred else None):
        if made is not None:
            cache.adopt(key, made)
        for i, res, blob in triples:
            results[i] = res = _compact(res, canon)
            if cache is not None:
                cache.put(refs[i], checked is None or refs[i].rel in checked, repo, ctx, res, blob)
            done += 1
        findings += repo_findings
        if cache is not None and key is not None and key in cache.operator_keys:
            cache.put_operator(cache.operator_keys[key], repo_findings)
        if key is not None and key not in whole:
            lighten(groups[key])
        if progress is not None:
            progress(done, total)
    if cache is not None:
        cache.flush()
        repo.cache_stats = {"hits": cache.hits, "misses": cache.misses}
    repo.facts = []
    ignores: dict = {}
    for res in results:
        findings += res.findings
        if res.facts is not None:
            repo.facts.append(res.facts)
        for path, lines in res.ignores.items():
            ignores.setdefault(path, {}).update(lines)
    try:
        gl = global_slice(repo, repo.facts)
        if gl.operators:  # a change list's operators, whole: their catalogs too
            from ..discover import load_catalogs

            load_catalogs(gl, gl.reader)
    except Exception as e:
        findings.append(internal(repo.root, global_slice, e))
        gl = dataclasses.replace(repo, operators={}, facts=[f for f in repo.facts if f.operator is None])
    findings += check_repo(gl, dataclasses.replace(ctx, operator=None))
    loose = {f.rel: f for f in repo_files(repo)}

    def line(path: str, n: int) -> str:
        got = ignores.get(path)
        if got is not None:
            return got.get(n, "")
        f = loose.get(path)
        return f.line_text(n) if f is not None else ""

    place(findings, repo.facts)  # before settle: inline ignores are read at the file a finding moves to
    return settle(findings, ctx, line)


def _compact(res: BundleResult, canon: dict) -> BundleResult:
    """The parent holds every bundle's result until the report: share what results repeat
    (each finding's list of OpenShift releases, paths, bundle names, rule ids) instead of keeping one
    unpickled copy per finding: on community-operators-prod, 180,000 fewer of the 1.2
    million objects the results are made of."""
    def one(v):
        if v is None:
            return None
        got = canon.get(v)
        if got is None:
            got = canon[v] = v
        return got

    def shared_list(v: list) -> list:
        # one list object for equal lists: nothing changes a result's lists once it is made
        key = ("list",) + tuple(v)
        got = canon.get(key)
        if got is None:
            got = canon[key] = list(v)
        return got

    for f in res.findings:
        if f.ocp_versions:
            f.ocp_versions = shared_list(f.ocp_versions)
        f.path = one(f.path)
        f.bundle = one(f.bundle)
        f.rule = one(f.rule)
    facts = res.facts
    if facts is not None:
        facts.ocp_versions = shared_list(facts.ocp_versions)
        facts.ocp_installable = shared_list(facts.ocp_installable)
        facts.channels = shared_list(facts.channels)
    return res


_REPORTED = ("rel", "checked", "operator", "version_dir", "package", "mediatype", "csv_name", "label",
             "ocp_versions", "ocp_installable", "dir_files")


def _light(res: BundleResult) -> BundleResult:
    """``res`` with only the facts the report reads (``report.run.BundleEntry.of_facts``) and where its
    directories are shown (``engine.place``), for a bundle of
    an operator whose repository rules have run: its CRDs, upgrade edges and positions are
    two thirds of what the parent would otherwise hold for a catalog (58 of 88 MB on
    community-operators-prod). A new object: a task being sent to a worker may hold the old."""
    f = res.facts
    if f is None:
        return res
    return dataclasses.replace(res, facts=BundleFacts(**{k: getattr(f, k) for k in _REPORTED}))
