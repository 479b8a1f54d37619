"""The core: the rules over one bundle or one operator, and the final severities.

load/discover -> model -> publication -> versions_analysis -> rules (pure) -> facts ->
findings -> settle -> report. Nothing here reads a file, starts a process or knows of a
cache: ``checker.runner`` loads what the core is given and calls it.

* ``check_bundle(bundle, ctx)``: publication (``publication.decide``), version analysis, the
  bundle rules (a checked bundle) and the bundle's facts -> ``BundleResult``;
* ``check_operator(facts, ctx)``: the repository rules on one operator's facts, its ci.yaml
  and its file-based catalogs (``ctx.operator``) -> findings;
* ``check_repo(repo, ctx)``: the repository rules on a repository view (``global_slice``:
  what is outside operators/, the change list);
* ``settle``: profiles, configuration, inline ignores.
"""
from __future__ import annotations

import dataclasses
import re
import traceback
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Callable, Iterable, Optional

from .context import Context
from .finding import SEVERITY_RANK, Finding
from .model import Bundle, BundleFacts, OperatorContext, Repository, SourceFile
from .rules import CHECKS, RULES, Rule


_IGNORE = re.compile(r"#\s*olm-check:\s*ignore(?:\[([^\]]*)\])?")


def internal(where: str, fn: object, exc: BaseException) -> Finding:
    """The finding for a bug of olm-check met at ``where`` (never a traceback)."""
    tb = traceback.extract_tb(exc.__traceback__)
    at = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
    text = str(exc).replace("\n", " ")
    text = text if len(text) <= 80 else text[:79] + "…"
    return Finding(rule="internal-error", severity="error", path=where, line=1, column=1,
                   message=f"olm-check failed inside check '{getattr(fn, '__name__', fn)}': {type(exc).__name__}: {text}",
                   detail=f"This is a bug in olm-check (at {at}); the other checks ran. Please report it with this file.")


@dataclass
class BundleResult:
    """What checking one bundle leaves behind once the bundle itself is dropped: its raw
    findings (severities settled later, in the parent), its facts, and the lines of its files
    that carry an ``# olm-check: ignore`` comment (path -> {line: text}). Picklable: worker
    processes return it and the cache stores it."""

    rel: str
    findings: list[Finding]
    facts: Optional[BundleFacts]
    ignores: dict[str, dict[int, str]] = field(default_factory=dict)


def ignore_lines(files: Iterable[SourceFile]) -> dict[str, dict[int, str]]:
    """path -> {line: text} for the lines of ``files`` holding an ignore comment."""
    out: dict[str, dict[int, str]] = {}
    for sf in files:
        text = sf.text
        if not text or "olm-check" not in text:
            continue
        for n, line in enumerate(text.split("\n"), 1):
            if "olm-check" in line and _IGNORE.search(line):
                out.setdefault(sf.rel, {})[n] = line
    return out


def check_bundle(bundle: Bundle, ctx: Context, checked: bool = True) -> BundleResult:
    """One loaded bundle, start to end: publication (``publication.decide``, from
    ``ctx.operator``), version analysis, the bundle rules (``checked``; a context bundle gets
    only its facts), its facts. Never raises: a failing stage or rule becomes an
    ``internal-error`` finding."""
    from .facts import bundle_facts
    from .publication import decide
    from .versions_analysis import analyse

    findings = []
    try:
        decide(bundle, ctx.operator, ctx)
    except Exception as e:
        findings.append(internal(bundle.rel, decide, e))
    try:
        analyse(bundle, ctx)
    except Exception as e:
        findings.append(internal(bundle.rel, analyse, e))
    if checked:
        for fn in CHECKS["bundle"]:
            try:
                for f in fn(bundle, ctx) or ():
                    if f.bundle is None:
                        f.bundle = bundle.rel
                    findings.append(f)
            except Exception as e:
                findings.append(internal(bundle.rel, fn, e))
    facts = None
    try:
        facts = bundle_facts(bundle, checked)
    except Exception as e:
        findings.append(internal(bundle.rel, bundle_facts, e))
    return BundleResult(bundle.rel, findings, facts, ignore_lines(bundle.files))


def check_repo(repo: Repository, ctx: Context) -> list[Finding]:
    """The repository rules on ``repo`` (a view: one operator's, or ``global_slice``)."""
    out: list[Finding] = []
    ctx = dataclasses.replace(ctx, repo=repo)
    for fn in CHECKS["repo"]:
        try:
            out.extend(fn(repo, ctx) or ())
        except Exception as e:
            out.append(internal(repo.root, fn, e))
    return out


def operator_slice(repo: Repository, operator: OperatorContext, facts: list[BundleFacts]) -> Repository:
    """The repository as one operator's repository rules see it: that operator (its
    ci.yaml, its file-based catalogs), its bundles' facts, nothing outside operators/."""
    name = operator.name
    catalogs: dict[str, dict[str, Any]] = {}
    fbc = {}
    if operator.catalogs is not None:
        fbc[name] = operator.catalogs
        for ocp, cat in operator.catalogs.catalogs.items():
            catalogs.setdefault(ocp, {})[name] = cat
    return dataclasses.replace(repo, operators={name: operator.operator}, bundle_refs=list(operator.refs), bundles=[],
                               facts=list(facts), catalogs=catalogs, fbc=fbc, loose_files=[],
                               catalog_sources=[], problems=[], changes=None)


def check_operator(facts: list[BundleFacts], ctx: Context) -> list[Finding]:
    """The repository rules on the operator of ``ctx.operator`` with its bundles' ``facts``
    (every bundle of the operator in the run, in ``refs`` order); ``ctx.repo``: the planned
    repository. Raw findings (settled later)."""
    assert ctx.repo is not None and ctx.operator is not None, "check_operator needs ctx.repo and ctx.operator"
    return check_repo(operator_slice(ctx.repo, ctx.operator, facts), ctx)


def global_slice(repo: Repository, facts: list[BundleFacts]) -> Repository:
    """The repository minus its operators: loose files, CatalogSources, bundles outside
    operators/, the change list. With a change list (a pull request), the operators it
    touches are in it too, whole (facts; their catalogs are loaded into it by the runner),
    for rules about the change as a whole; what they report on those operators is what the
    operators' own slices report."""
    touched = touched_operators(repo) if repo.changes is not None else set()
    refs = [r for r in repo.bundle_refs if r.operator is None or r.operator_dir in touched]
    kept = {r.rel for r in refs}
    # a slice is keyed by operator name (``model.Repository.operators``): a change list's
    # operators are those of one tree
    return dataclasses.replace(repo, operators={op.name: op for k, op in repo.operators.items() if k in touched},
                               bundle_refs=refs, bundles=[],
                               facts=[f for f in facts if f.operator is None or f.rel in kept],
                               catalogs={}, fbc={})


def touched_operators(repo: Repository) -> set[str]:
    """The operators of ``repo`` a change list touches (``operators/<name>/``,
    ``catalogs/*/<name>/``), by directory (the keys of ``repo.operators``)."""
    from .layout import operator_dirs_touched

    paths = [p for c in repo.changes or [] for p in (getattr(c, "path", None), getattr(c, "previous_path", None)) if p]
    base = getattr(repo.reader, "display_base", None) or repo.root
    return operator_dirs_touched(base, paths) & set(repo.operators)


def repo_files(repo: Repository) -> list[SourceFile]:
    """The files of ``repo`` outside bundles that findings point at (loose manifests, ci.yaml)."""
    out = list(repo.loose_files)
    for op in repo.operators.values():
        if op.ci_file is not None:
            out.append(op.ci_file)
    return out


def place(findings: Iterable[Finding], facts: Iterable[BundleFacts]) -> None:
    """A finding about a bundle's directory (the bundle, manifests/, metadata/) is put at the
    file in it an editor opens, on line 1: ``dir:1:1`` opens nowhere. The model says which
    file (``BundleFacts.dir_files``, read by the loader); a directory it does not know stays."""
    import posixpath

    where: dict[str, str] = {}
    for fa in facts:
        where.update(fa.dir_files)
    if not where:
        return
    for f in findings:
        p = f.path
        if not p:
            continue
        sub = where.get(posixpath.normpath(p))
        if sub is not None:
            f.path, f.line, f.column = (sub if p in (".", "./") else p.rstrip("/") + "/" + sub), 1, 1


def settle(findings: Iterable[Finding], ctx: Context, line_text: Optional[Callable[[str, int], str]] = None) -> list[Finding]:
    """Final severities (rule default, profile, config, per-path), disabled rules and inline
    ``# olm-check: ignore[rule-id]`` comments. Sorted and de-duplicated."""
    out = []
    seen = set()
    findings = list(findings)
    live = ctx.live()
    fbc = {x.operator for x in (ctx.repo.facts if ctx.repo is not None else ()) if getattr(x, "fbc", False)}
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
                sev = _judge(f, rule, ctx, live, fbc)
                if sev is None:
                    continue
                f.severity = sev
        elif f.severity is None:
            f.severity = "error"
        if line_text is not None and f.rule != "internal-error" and (ctx.ignores is None or ctx.ignores.honoured(f.path, f.line)):
            m = _IGNORE.search(line_text(f.path, f.line))
            if m and (m.group(1) is None or f.rule in [x.strip() for x in m.group(1).split(",")]):
                continue
        if not f.message.isascii():
            f.message = _text(f.message)
        if f.message.endswith(".") and not f.message.endswith(("..", "e.g.", "i.e.", "etc.")):
            f.message = f.message[:-1]  # one style for every message: a sentence without its full stop, as linters print them
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
    return capped(out)


MAX_PER_RULE_AND_FILE = 100


def capped(findings: list[Finding], limit: int = MAX_PER_RULE_AND_FILE) -> list[Finding]:
    """At most ``limit`` findings of one rule in one file (sorted), then one more that says how
    many were left out, as severe as the most severe of them: a file that repeats one problem
    60,000 times costs a report, a check run and comments of bounded size, and the verdict is
    the same."""
    count: dict[tuple[str, str], int] = {}
    for f in findings:
        count[(f.rule, f.path)] = count.get((f.rule, f.path), 0) + 1
    if all(n <= limit for n in count.values()):
        return findings
    out: list[Finding] = []
    seen: dict[tuple[str, str], int] = {}
    rest: dict[tuple[str, str], Finding] = {}
    for f in findings:
        key = (f.rule, f.path)
        n = seen[key] = seen.get(key, 0) + 1
        if n <= limit:
            out.append(f)
            continue
        first = rest.get(key)
        if first is None:
            more = count[key] - limit
            rest[key] = first = dataclasses.replace(
                f, fix=None, message=f"more findings of {f.rule} in this file are not listed",
                detail=f"olm-check lists at most {limit} findings of one rule in one file; {more} more of {f.rule} "
                       f"from line {f.line} on are left out. Fix the ones listed and check again.")
            out.append(first)
        elif SEVERITY_RANK.get(f.severity or "", 0) > SEVERITY_RANK.get(first.severity or "", 0):
            first.severity = f.severity
    return out


_NOTES = {
    "waived": "The catalog's config.yaml waives {gate} for this operator, so it does not refuse it here.",
    "end-of-life": "Only releases whose catalogs are no longer built are concerned ({releases}): nothing installs it "
                   "there any more.",
}


def _judge(f: Finding, rule: Rule, ctx: Context, live: Optional[set[str]], fbc: AbstractSet[Optional[str]] = frozenset()) -> Optional[str]:
    """The severity of ``f`` for the run's target (``ctx.profile``), from the gates' data
    (``checker.gates``): an error exactly where a gate on the target's route refuses its kind;
    None when the target does not report it. Rule code names no severity: only the finding's
    kind, which the data judges."""
    from . import gates

    if ctx.profile == "minimal" and rule.category != "format":
        return None  # minimal: the format rules only
    op = gates.operator_of(f.path)
    v = gates.judge(rule.id, f.kind, ctx.profile, op, f.ocp_versions, ctx.catalog, live,
                    pinned=bool(ctx.target), fbc=op in fbc)
    if v is None:  # every rule has an entry (tests/test_gates.py); a kind without one reads its rule's default
        return "warning"
    if v.gate is not None:
        g = v.gate
        f.gate = {"id": g.id, "name": g.title(), "source": g.source, "since": g.since}
    if v.note and v.gate is not None:
        note = _NOTES[v.note].format(gate=v.gate.id, releases=", ".join(map(str, f.ocp_versions)))
        if note not in f.detail:
            f.detail = f"{f.detail} {note}".strip()
    elif v.severity == "error" and v.gate is not None and v.gate.since:
        note = (f"{v.gate.id} has been in the catalog pipeline since {v.gate.since}: a bundle accepted before then "
                "passed without it, and fails it when submitted again.")
        if note not in f.detail:
            f.detail = f"{f.detail} {note}".strip()
    for gid, sentence in (f.gate_notes or {}).items():  # what holds only where that gate is on the route
        noted = gates.tables().gates.get(gid)
        if noted is not None and gates.on_route(noted, ctx.profile, op in fbc) and not (ctx.catalog and ctx.catalog.waived(gid, op)):
            f.detail = f"{f.detail} {sentence}".strip()
    f.gate_notes = None
    return v.severity


def _supersede(out: list[Finding]) -> list[Finding]:
    """Apply ``Rule.supersedes`` to settled findings (see ``settle``)."""
    by_place: dict[tuple[str, int, int], list[Finding]] = {}
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
            if SEVERITY_RANK.get(g.severity or "", 0) >= SEVERITY_RANK.get(f.severity or "", 0):
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


def exit_code(findings: list[Finding], fail_on: str) -> int:
    if fail_on == "never":
        return 0
    limit = SEVERITY_RANK[fail_on]
    return 1 if any(SEVERITY_RANK.get(f.severity or "", 0) >= limit for f in findings) else 0
