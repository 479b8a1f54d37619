"""Runs the rules over the model and settles each finding's final severity.

load/discover -> model -> engine (rules, pure) -> findings -> report.
"""
from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field
from typing import Iterable, Optional

from .config import Config
from .finding import SEVERITY_RANK, Finding
from .model import Bundle, Repository
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
    return Finding(rule="internal-error", severity="error", path=where, line=1, column=1,
                   message=(f"olm-check failed inside check '{getattr(fn, '__name__', fn)}' ({type(exc).__name__}: {exc}, at {at}); "
                            "the other checks ran. This is a bug in olm-check: please report it with this file."))


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


def prepare(repo: Repository, ctx: Context) -> list:
    out = []
    for fn in CHECKS["prepare"]:
        try:
            fn(repo, ctx)
        except Exception as e:
            out.append(_internal(repo.root, fn, e))
    return out


def check_repo(repo: Repository, ctx: Context) -> list:
    out = []
    for fn in CHECKS["repo"]:
        try:
            out.extend(fn(repo, ctx) or ())
        except Exception as e:
            out.append(_internal(repo.root, fn, e))
    return out


def run(repo: Repository, ctx: Context) -> list:
    load_all()
    ctx.repo = repo
    findings = list(repo.problems)
    findings += prepare(repo, ctx)
    checked = set(repo.checked) if repo.checked else None
    from .facts import bundle_facts
    from .versions_analysis import analyse

    repo.facts = []
    for b in repo.bundles:
        is_checked = checked is None or b.rel in checked
        if is_checked:
            findings += check_bundle(b, ctx)
        else:
            try:
                analyse(b, ctx)  # context bundles: version facts only
            except Exception as e:
                findings.append(_internal(b.rel, analyse, e))
        try:
            repo.facts.append(bundle_facts(b, is_checked))
        except Exception as e:
            findings.append(_internal(b.rel, bundle_facts, e))
    findings += check_repo(repo, ctx)
    return settle(findings, ctx, _line_lookup(repo))


def _line_lookup(repo: Repository):
    files = {}
    for b in repo.bundles:
        for f in b.files:
            files[f.rel] = f
    for f in repo.loose_files:
        files[f.rel] = f

    def line(path: str, n: int) -> str:
        f = files.get(path)
        return f.line_text(n) if f is not None else ""

    return line


def settle(findings: Iterable[Finding], ctx: Context, line_text=None) -> list:
    """Final severities (rule default, profile, config, per-path), disabled rules and inline
    ``# olm-check: ignore[rule-id]`` comments. Sorted and de-duplicated."""
    out = []
    seen = set()
    for f in findings:
        rule = RULES.get(f.rule)
        if rule is not None:
            base = rule.severity_in(ctx.profile)
            if base is None:
                continue
            sev = f.severity or base
            if f.severity is None or f.severity == rule.severity:
                sev = base
            override = ctx.config.severity_override(f.rule, f.path)
            if override == "off":
                continue
            if override is not None:
                sev = override
            f.severity = sev
        elif f.severity is None:
            f.severity = "error"
        if line_text is not None and f.rule != "internal-error":
            m = _IGNORE.search(line_text(f.path, f.line))
            if m and (m.group(1) is None or f.rule in [x.strip() for x in m.group(1).split(",")]):
                continue
        key = (f.rule, f.path, f.line, f.column, f.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    out.sort(key=Finding.sort_key)
    return out


def exit_code(findings: list, fail_on: str) -> int:
    if fail_on == "never":
        return 0
    limit = SEVERITY_RANK[fail_on]
    return 1 if any(SEVERITY_RANK.get(f.severity, 0) >= limit for f in findings) else 0
