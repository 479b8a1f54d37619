"""Runs the rules over the model and settles each finding's final severity.

load/discover -> model -> engine (rules, pure) -> findings -> report.
"""
from __future__ import annotations

import dataclasses
import re
import traceback
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .config import Config
from .finding import SEVERITY_RANK, Finding
from .model import Bundle, BundleFacts, Repository
from .rules import CHECKS, RULES, load_all
from .versions import ApiTable, OcpTable


@dataclass
class Context:
    """What rules may know besides the model: settings and the version tables."""

    config: Config = field(default_factory=Config)
    profile: str = "community"
    ocp: OcpTable = None
    apis: ApiTable = None
    target: Optional[list] = None  # --ocp: list of release strings, replaces every range
    repo: Optional[Repository] = None

    def __post_init__(self):
        if self.ocp is None:
            self.ocp = OcpTable.load(self.config.ocp_releases)
        if self.apis is None:
            self.apis = ApiTable.load(self.config.apis)

    def option(self, rule_id: str, name: str, default=None):
        return (self.config.options.get(rule_id) or {}).get(name, default)


_IGNORE = re.compile(r"#\s*olm-check:\s*ignore(?:\[([^\]]*)\])?")


def _internal(where: str, fn, exc: BaseException) -> Finding:
    tb = traceback.extract_tb(exc.__traceback__)
    at = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
    text = str(exc).replace("\n", " ")
    text = text if len(text) <= 80 else text[:79] + "…"
    return Finding(rule="internal-error", severity="error", path=where, line=1, column=1,
                   message=f"olm-check failed inside check '{getattr(fn, '__name__', fn)}': {type(exc).__name__}: {text}",
                   detail=f"This is a bug in olm-check (at {at}); the other checks ran. Please report it with this file.")


def check_bundle(bundle: Bundle, ctx: Context) -> list:
    """Every bundle-scope rule on one bundle (version facts computed first)."""
    from .versions_analysis import analyse

    out = []
    try:
        analyse(bundle, ctx)
    except Exception as e:  # never a traceback: report and go on
        out.append(_internal(bundle.rel, analyse, e))
    for fn in CHECKS["bundle"]:
        try:
            for f in fn(bundle, ctx) or ():
                if f.bundle is None:
                    f.bundle = bundle.rel
                out.append(f)
        except Exception as e:
            out.append(_internal(bundle.rel, fn, e))
    return out


def prepare(repo: Repository, ctx: Context, where: Optional[str] = None) -> list:
    """``prepare`` hooks on ``repo`` (whose ``bundles`` are the bundles being processed)."""
    return _run_hooks("prepare", repo, ctx, where or repo.root)


def _run_hooks(kind: str, target, ctx: Context, where: str) -> list:
    """Run the ``kind`` hooks on ``target`` (they change it, they report nothing): an
    internal-error finding at ``where`` for each that fails."""
    out = []
    for fn in CHECKS[kind]:
        try:
            fn(target, ctx)
        except Exception as e:
            out.append(_internal(where, fn, e))
    return out


def prepare_repo(repo: Repository, ctx: Context) -> list:
    """``prepare_repo`` hooks: once per run, on the planned repository (no bundle loaded)."""
    return _run_hooks("prepare_repo", repo, ctx, repo.root)


def check_repo(repo: Repository, ctx: Context) -> list:
    out = []
    for fn in CHECKS["repo"]:
        try:
            out.extend(fn(repo, ctx) or ())
        except Exception as e:
            out.append(_internal(repo.root, fn, e))
    return out


@dataclass
class BundleResult:
    """What checking one bundle leaves behind once the bundle itself is dropped: its raw
    findings (severities settled later, in the parent), its facts, and the lines of its files
    that carry an ``# olm-check: ignore`` comment (path -> {line: text}). Picklable: worker
    processes return it and the cache stores it."""

    rel: str
    findings: list
    facts: Optional[BundleFacts]
    ignores: dict = field(default_factory=dict)


def ignore_lines(files) -> dict:
    """path -> {line: text} for the lines of ``files`` holding an ignore comment."""
    out = {}
    for sf in files:
        text = sf.text
        if not text or "olm-check" not in text:
            continue
        for n, line in enumerate(text.split("\n"), 1):
            if "olm-check" in line and _IGNORE.search(line):
                out.setdefault(sf.rel, {})[n] = line
    return out


class SiblingBundles:
    """``operator.bundles`` while streaming: the bundle being checked plus, for each other
    bundle of its operator, a light ``Bundle`` holding only ``metadata/annotations.yaml``
    (package, channels, mediatype, label), loaded on first use and kept for the operator
    being processed. Compatibility for bundle rules that look at sibling bundles'
    annotations; anything more belongs in a repo rule reading ``repo.facts``. (The cache key
    covers every sibling's annotations.yaml: ``cache.operator_inputs``.)"""

    _memo: dict = {}  # operator -> {rel: light Bundle}, one operator at a time per process

    def __init__(self, repo: Repository, bundle: Bundle):
        self._repo, self._bundle, self._items = repo, bundle, None

    def _load(self) -> list:
        if self._items is None:
            from .load import load_metadata

            name = self._bundle.operator
            memo = SiblingBundles._memo.get(name)
            if memo is None:
                SiblingBundles._memo = {name: {}}
                memo = SiblingBundles._memo[name]
            reader = self._repo.extra["reader"]
            out = []
            for ref in self._repo.bundle_refs:
                if ref.operator != name:
                    continue
                if ref.rel == self._bundle.rel:
                    out.append(self._bundle)
                    continue
                light = memo.get(ref.rel)
                if light is None:
                    light = memo[ref.rel] = load_metadata(reader, ref.path)
                    light.operator, light.version_dir = ref.operator, ref.version_dir
                out.append(light)
            self._items = out
        return self._items

    def __iter__(self):
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())

    def __getitem__(self, i):
        return self._load()[i]


def _bundle_steps(bundle: Bundle, checked: bool, ctx: Context) -> tuple:
    """``prepare_bundle`` hooks, then the bundle rules (checked bundles) or only the version
    analysis (context bundles), then the facts: (findings, BundleFacts or None). Never raises."""
    from .facts import bundle_facts
    from .versions_analysis import analyse

    findings = _run_hooks("prepare_bundle", bundle, ctx, bundle.rel)
    if checked:
        findings += check_bundle(bundle, ctx)
    else:
        try:
            analyse(bundle, ctx)  # context bundles: version facts only
        except Exception as e:
            findings.append(_internal(bundle.rel, analyse, e))
    facts = None
    try:
        facts = bundle_facts(bundle, checked)
    except Exception as e:
        findings.append(_internal(bundle.rel, bundle_facts, e))
    return findings, facts


def process_bundle(bundle: Bundle, checked: bool, repo: Repository, ctx: Context) -> BundleResult:
    """One bundle, start to end: ``prepare`` hooks (on a view of ``repo`` holding just this
    bundle), ``prepare_bundle`` hooks, version analysis, bundle rules (checked bundles only),
    facts. Never raises: a failing hook or rule becomes an ``internal-error`` finding."""
    findings = []
    view = dataclasses.replace(repo, bundles=[bundle])
    op = repo.operators.get(bundle.operator) if bundle.operator else None
    if op is not None and repo.bundle_refs:
        view.operators = dict(repo.operators)
        view.operators[bundle.operator] = dataclasses.replace(op, bundles=SiblingBundles(repo, bundle))
    saved = ctx.repo
    ctx.repo = view
    try:
        findings += prepare(view, ctx, bundle.rel)
        more, facts = _bundle_steps(bundle, checked, ctx)
        findings += more
    finally:
        ctx.repo = saved
    return BundleResult(bundle.rel, findings, facts, ignore_lines(bundle.files))


def run(repo: Repository, ctx: Context) -> list:
    """Check a repository whose bundles are all loaded (``discover.discover``). ``prepare``
    hooks see every bundle at once here. Same findings as ``run_stream``."""
    load_all()
    ctx.repo = repo
    findings = list(repo.problems)
    findings += prepare_repo(repo, ctx)
    findings += prepare(repo, ctx)
    checked = set(repo.checked) if repo.checked else None
    repo.facts = []
    for b in repo.bundles:
        more, facts = _bundle_steps(b, checked is None or b.rel in checked, ctx)
        findings += more
        if facts is not None:
            repo.facts.append(facts)
    findings += check_repo(repo, ctx)
    return settle(findings, ctx, _line_lookup(repo))


def operator_slice(repo: Repository, name: str, refs: list) -> Repository:
    """The repository as one operator's bundles and repository rules see it: that operator
    (its ci.yaml, its file-based catalogs once ``load_catalogs`` ran), its bundles, nothing
    outside operators/."""
    extra = dict(repo.extra)
    extra["fbc"] = {}
    return dataclasses.replace(repo, operators={name: repo.operators[name]}, bundle_refs=list(refs), bundles=[],
                               facts=[], catalogs={}, extra=extra, loose_files=[], catalog_sources=[],
                               problems=[], changes=None)


def global_slice(repo: Repository, facts: list) -> Repository:
    """The repository minus its operators: loose files, CatalogSources, bundles outside
    operators/, the change list. With a change list (a pull request), the operators it
    touches are in it too, whole (facts and catalogs), for rules about the change as a
    whole; what they report on those operators is what the operators' own slices report."""
    touched = _touched_operators(repo) if repo.changes is not None else set()
    extra = dict(repo.extra)
    extra["fbc"] = {}
    sl = dataclasses.replace(repo, operators={n: op for n, op in repo.operators.items() if n in touched},
                             bundle_refs=[r for r in repo.bundle_refs if r.operator is None or r.operator in touched],
                             bundles=[], facts=[f for f in facts if f.operator is None or f.operator in touched],
                             catalogs={}, extra=extra)
    if touched:
        from .discover import load_catalogs

        load_catalogs(sl, sl.extra["reader"])
    return sl


def _touched_operators(repo: Repository) -> set:
    out = set()
    for c in repo.changes or []:
        for p in (getattr(c, "path", None), getattr(c, "previous_path", None)):
            parts = (p or "").split("/")
            for i, part in enumerate(parts[:-1]):
                if part == "operators" and parts[i + 1] in repo.operators:
                    out.add(parts[i + 1])
                if part == "catalogs" and i + 2 < len(parts) and parts[i + 2] in repo.operators:
                    out.add(parts[i + 2])
    return out


def process_operator(name: str, items: list, repo: Repository, ctx: Context) -> tuple:
    """One operator, start to end, in the process running it: its file-based catalogs are
    loaded, each bundle without a cached result is loaded, checked, reduced and dropped, then
    the repository rules run on the operator's facts; the catalogs are dropped with the
    slice. ``items``: [(index, BundleRef, checked, cached BundleResult or None)]. Returns
    ([(index, BundleResult)] of the bundles checked here, raw repository findings)."""
    from .discover import load_catalogs
    from .parallel import check_one

    sl = operator_slice(repo, name, [it[1] for it in items])
    out, findings = [], []
    saved = ctx.repo
    ctx.repo = sl
    try:
        try:
            load_catalogs(sl, sl.extra["reader"])
        except Exception as e:
            findings.append(_internal(sl.operators[name].rel, load_catalogs, e))
        facts = []
        for i, ref, checked, cached in items:
            res = cached
            if res is None:
                res = check_one((i, ref, checked), sl, ctx)[1]
                out.append((i, res))
            if res.facts is not None:
                facts.append(res.facts)
        sl.facts = facts
        ctx.repo = sl
        findings += check_repo(sl, ctx)
    finally:
        ctx.repo = saved
    return out, findings


def run_stream(repo: Repository, ctx: Context, jobs: int = 1, cache=None, progress=None) -> list:
    """Check a planned repository (``discover.plan``, catalogs not loaded) one operator at a
    time: for each operator, in one of ``jobs`` worker processes (this process when 1), its
    file-based catalogs are loaded, its bundles are loaded, checked and reduced to
    ``BundleResult``s one by one, and the repository rules run on its facts; then all of it is
    dropped, so memory stays flat however large the catalog. Bundles outside operators/ are
    tasks of their own, and the repository rules run once more, here, on what is outside
    operators/ (loose files, CatalogSources, the change list). ``cache`` (``cache.Cache``)
    answers unchanged bundles without loading them, and unchanged operators without loading
    their catalogs. Returns the settled findings; ``repo.facts`` holds every bundle's facts in
    ``repo.bundle_refs`` order (for bundles of operators whose repository rules ran in full,
    only the fields the report reads: ``_light``).

    Repository rules therefore see one operator at a time (as a ``--shard`` does): they must
    compare bundles of the same operator only (``checker.rules`` documents it)."""
    from .parallel import map_tasks

    load_all()
    SiblingBundles._memo = {}  # nothing read by an earlier run in this process (another tree, older files)
    ctx.repo = repo
    findings = list(repo.problems)
    findings += prepare_repo(repo, ctx)
    checked = set(repo.checked) if repo.checked else None
    refs = repo.bundle_refs
    results: list = [None] * len(refs)
    canon: dict = {}  # one shared copy of each release list and path (see _compact)
    groups: dict = {}
    for i, ref in enumerate(refs):
        groups.setdefault(ref.operator, []).append((i, ref, checked is None or ref.rel in checked))
    tasks = []
    deferred = cache is not None and cache.defer(repo, ctx, jobs)
    if cache is not None and not deferred:
        cache.prepare(groups, repo, ctx, jobs)
    # operators whose bundles' full facts the repository rules run here need (global_slice)
    whole = _touched_operators(repo) if repo.changes is not None else set()

    def lighten(members: list) -> None:
        for i, _, _ in members:
            results[i] = _light(results[i])

    for name, members in groups.items():
        hits = []
        for i, ref, chk in members:
            hit = cache.get(ref, chk, repo, ctx) if cache is not None and not deferred else None
            results[i] = hit = _compact(hit, canon) if hit is not None else None
            hits.append(hit)
        if name is None:
            tasks += [("bundle", (i, ref, chk)) for (i, ref, chk), hit in zip(members, hits) if hit is None]
            continue
        if cache is not None:
            if all(h is not None for h in hits):
                got = cache.get_operator(cache.operator_keys[name])
                if got is not None:
                    findings += got
                    if name not in whole:
                        lighten(members)
                    continue
        tasks.append(("operator", (name, [(i, ref, chk, hit) for (i, ref, chk), hit in zip(members, hits)])))
    total = len(refs)
    done = total - sum(1 for r in results if r is None)
    if progress is not None:
        progress(done, total)
    # the biggest operators first, so that no worker is left with one at the end
    tasks.sort(key=lambda t: -sum(1 for it in t[1][1] if it[3] is None) if t[0] == "operator" else -1)
    if deferred:
        cache.misses += total
    for kind, triples, repo_findings, name, made in map_tasks(tasks, repo, ctx, jobs, cache if deferred else None):
        if made is not None:
            cache.adopt(name, made)
        for i, res, blob in triples:
            results[i] = res = _compact(res, canon)
            if cache is not None:
                cache.put(refs[i], checked is None or refs[i].rel in checked, repo, ctx, res, blob)
            done += 1
        findings += repo_findings
        if cache is not None and name is not None and name in cache.operator_keys:
            cache.put_operator(cache.operator_keys[name], repo_findings)
        if name is not None and name not in whole:
            lighten(groups[name])
        if progress is not None:
            progress(done, total)
    if cache is not None:
        cache.flush()
        repo.extra["cache_stats"] = {"hits": cache.hits, "misses": cache.misses}
    repo.facts = []
    ignores: dict = {}
    for ref, res in zip(refs, results):
        findings += res.findings
        if res.facts is not None:
            repo.facts.append(res.facts)
        for path, lines in res.ignores.items():
            ignores.setdefault(path, {}).update(lines)
    try:
        gl = global_slice(repo, repo.facts)
    except Exception as e:
        findings.append(_internal(repo.root, global_slice, e))
        gl = dataclasses.replace(repo, operators={}, facts=[f for f in repo.facts if f.operator is None])
    ctx.repo = gl
    findings += check_repo(gl, ctx)
    ctx.repo = repo
    loose = {f.rel: f for f in _repo_files(repo)}

    def line(path: str, n: int) -> str:
        got = ignores.get(path)
        if got is not None:
            return got.get(n, "")
        f = loose.get(path)
        return f.line_text(n) if f is not None else ""

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
             "ocp_versions", "ocp_installable")


def _light(res: BundleResult) -> BundleResult:
    """``res`` with only the facts the report reads (``report.facts_entry``), for a bundle of
    an operator whose repository rules have run: its CRDs, upgrade edges and positions are
    two thirds of what the parent would otherwise hold for a catalog (58 of 88 MB on
    community-operators-prod). A new object: a task being sent to a worker may hold the old."""
    f = res.facts
    if f is None:
        return res
    return dataclasses.replace(res, facts=BundleFacts(**{k: getattr(f, k) for k in _REPORTED}))


def _repo_files(repo: Repository) -> list:
    out = list(repo.loose_files)
    for op in repo.operators.values():
        if op.ci_file is not None:
            out.append(op.ci_file)
    return out


def _line_lookup(repo: Repository):
    files = {}
    for b in repo.bundles:
        for f in b.files:
            files[f.rel] = f
    for f in _repo_files(repo):
        files[f.rel] = f

    def line(path: str, n: int) -> str:
        f = files.get(path)
        return f.line_text(n) if f is not None else ""

    return line


def _openable(d: str, depth: int = 0) -> Optional[str]:
    """The file an editor should open for a finding about the directory ``d``, relative to it
    (None when the directory holds no file): an operator's ci.yaml; a bundle's
    ClusterServiceVersion, else its metadata/annotations.yaml, else the first file of
    manifests/ or metadata/; else the directory's first file (or its first subdirectory's)."""
    import os

    def files(sub: str) -> list:
        try:
            with os.scandir(os.path.join(d, sub) if sub else d) as it:
                return sorted(e.name for e in it if not e.name.startswith(".") and e.is_file())
        except OSError:
            return []

    if os.path.isfile(os.path.join(d, "ci.yaml")):
        return "ci.yaml"
    manifests = files("manifests")
    csv = [n for n in manifests if "clusterserviceversion" in n.lower()]
    if csv:
        return "manifests/" + csv[0]
    for name in ("annotations.yaml", "annotations.yml"):
        if os.path.isfile(os.path.join(d, "metadata", name)):
            return "metadata/" + name
    if manifests:
        return "manifests/" + manifests[0]
    meta = files("metadata")
    if meta:
        return "metadata/" + meta[0]
    here = files("")
    if here:
        yamls = [n for n in here if n.endswith((".yaml", ".yml"))]
        return (yamls or here)[0]
    if depth < 3:
        try:
            with os.scandir(d) as it:
                subs = sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            subs = []
        for sub in subs:
            got = _openable(os.path.join(d, sub), depth + 1)
            if got is not None:
                return sub + "/" + got
    return None


def at_files(findings: list, ctx: Context) -> None:
    """A finding about a directory (a bundle or operator directory, manifests/, a repository
    root) is put at a file an editor opens, on line 1 (``_openable``): ``dir:1:1`` opens
    nowhere. Directories are recognised on disk, from the display path (``Reader.rel``: relative
    to the display base, or as the user typed it)."""
    import os

    repo = ctx.repo
    reader = repo.extra.get("reader") if repo is not None else None
    base = getattr(reader, "display_base", None) or os.getcwd()
    memo: dict = {}
    for f in findings:
        p = f.path
        if not p:
            continue
        got = memo.get(p, False)
        if got is False:
            got = None
            for cand in ((p,) if os.path.isabs(p) else (os.path.join(base, p), os.path.abspath(p))):
                if os.path.isdir(cand) and not os.path.islink(cand):
                    sub = _openable(cand)
                    if sub is not None:
                        got = sub if p in (".", "./") else p.rstrip("/") + "/" + sub
                    break
            memo[p] = got
        if got is not None:
            f.path, f.line, f.column = got, 1, 1


def settle(findings: Iterable[Finding], ctx: Context, line_text=None) -> list:
    """Final severities (rule default, profile, config, per-path), disabled rules and inline
    ``# olm-check: ignore[rule-id]`` comments. Sorted and de-duplicated. A finding about a
    directory is put at a file in it first (``at_files``)."""
    out = []
    seen = set()
    findings = list(findings)
    at_files(findings, ctx)
    for f in findings:
        rule = RULES.get(f.rule)
        if rule is not None:
            # the configuration (per path, then per rule) is the user's word and wins over the
            # profile's default: it turns off a rule the profile reports and sets the severity of
            # one the profile leaves off (`rules: {feature-annotations-required: error}`)
            override = ctx.config.severity_override(f.rule, f.path)
            if override == "off":
                continue
            if override is not None:
                f.severity = override
            else:
                base = rule.severity_in(ctx.profile)
                if base is None:
                    continue
                if f.severity is None or f.severity == rule.severity:
                    f.severity = base
        elif f.severity is None:
            f.severity = "error"
        if line_text is not None and f.rule != "internal-error":
            m = _IGNORE.search(line_text(f.path, f.line))
            if m and (m.group(1) is None or f.rule in [x.strip() for x in m.group(1).split(",")]):
                continue
        if not f.message.isascii():
            f.message = _text(f.message)
        key = (f.rule, f.path, f.line, f.column, f.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    # one problem, one finding: a rule that tells it more precisely replaces another's finding
    # at the same place -- when it is itself reported (not off, not ignored there) and at least
    # as severe; when the replaced finding is the more severe (a profile or the configuration
    # raised it), that one stays and the more precise one goes: the verdict is never lowered
    out = _supersede(out)
    out.sort(key=Finding.sort_key)
    return out


def _supersede(out: list) -> list:
    """Apply ``Rule.supersedes`` to settled findings (see ``settle``)."""
    by_place = {}
    for f in out:
        rule = RULES.get(f.rule)
        if rule is not None and rule.supersedes:
            by_place.setdefault((f.path, f.line, f.column), []).append(f)
    if not by_place:
        return out
    drop = set()
    for f in out:
        for g in by_place.get((f.path, f.line, f.column), ()):
            if f.rule not in RULES[g.rule].supersedes:
                continue
            if SEVERITY_RANK.get(g.severity, 0) >= SEVERITY_RANK.get(f.severity, 0):
                drop.add(id(f))
            else:
                drop.add(id(g))
    return [f for f in out if id(f) not in drop] if drop else out


def _text(s: str) -> str:
    """``s`` with any byte of a file name that is not UTF-8 (a surrogate, as the file system
    hands it to Python) written as \\xNN: reports are UTF-8 text."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def exit_code(findings: list, fail_on: str) -> int:
    if fail_on == "never":
        return 0
    limit = SEVERITY_RANK[fail_on]
    return 1 if any(SEVERITY_RANK.get(f.severity, 0) >= limit for f in findings) else 0
