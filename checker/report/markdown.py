"""Markdown for people (job summary, PR comment). Bundle-supplied text is made inert: shown
in code spans or HTML-escaped, so a bundle cannot mention people, inject HTML or links, or
break a table."""
from __future__ import annotations

import html
import re
from dataclasses import replace
from typing import Any, Mapping, Sequence

from ..finding import SEVERITY_RANK, Finding
from ..versions import release_ranges as _ranges
from .links import help_uri
from .run import RunReport

ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


def code(s: object, table: bool = True) -> str:
    """An inline code span holding ``s`` verbatim (backticks in it handled). ``table``: the
    span sits in a table cell, where a ``|`` must be escaped (GitHub un-escapes it there);
    elsewhere it is left as it is (an escape would show)."""
    s = str(s).replace("\r", " ").replace("\n", " ")
    if "<!--" in s:  # the shape of the Action's markers: shown as text, never as a comment's marker
        return f"<code>{text(s)}</code>"
    if table:
        s = s.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()!~|])")
# what GitHub turns into links or notifications after rendering: @mentions (and e-mail
# autolinks), #123 / GH-123 references, bare URLs and www. names. A zero-width space (as an
# entity, so no later step touches it) breaks each without changing what people read.
# GitHub links a URL after any character, not only at a word boundary (`v4.14_http://...`)
_AUTOLINK = re.compile(r"(?i)[@#]|(?:https?|ftp|mailto)(?=:)|www(?=\.)|\bGH(?=-\d)")


def text(s: object) -> str:
    """Prose from a bundle, made inert for GitHub Markdown (tables included): no HTML, no
    @mentions, no issue references, no autolinks or links, no emphasis, no table breaks."""
    s = str(s).replace("\r", " ").replace("\n", " ")
    s = html.escape(s, quote=False)  # & < > -> entities: no HTML, no <autolinks>
    s = _MD_SPECIAL.sub(r"\\\1", s)  # markdown punctuation is shown as itself
    return _AUTOLINK.sub(lambda m: m.group(0) + "&#8203;", s)


def releases(versions: Sequence[str], not_ga: Sequence[str] = ()) -> str:
    """'4.12-4.22, 4.23 (not GA)': the releases as every report prints them."""
    return _ranges(list(versions), not_ga)


def rule_link(rule_id: str, table: bool = False) -> str:
    """The rule id as code, linked to its page (docs/rules.md) when it has one."""
    uri = help_uri(rule_id)
    return f"[{code(rule_id, table)}]({uri})" if uri else code(rule_id, table)


SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _by_severity(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f.severity or "", 3), f.path, f.line, f.column, f.rule))


def operator_dir(run: RunReport) -> str:
    """``operators/<name>`` when every checked bundle is one operator's: finding paths are
    shown relative to it. "" otherwise."""
    ops = {"/".join(b.path.split("/")[:2]) for b in run.bundles
           if b.path.startswith("operators/") and b.path.count("/") >= 2}
    return ops.pop() if len(ops) == 1 else ""


def where(f: Finding, base: str = "", blob: str = "") -> str:
    """The finding's place: ``path:line`` relative to ``base`` (the operator directory) in
    code, linked to the line at the pull request's head when ``blob`` (``.../blob/<sha>/``)."""
    from urllib.parse import quote

    shown = f.path[len(base) + 1:] if base and f.path.startswith(base + "/") else f.path
    label = code(f"{shown}:{f.line}")
    return f"[{label}]({blob}{quote(f.path)}#L{max(1, f.line)})" if blob else label


def verdict(run: RunReport) -> str:
    """The first line: blocks or passes on ``run.fail_on``, and why (with a baseline: on the
    new and updated findings only, unless ``run.fail_on_unchanged``)."""
    findings, fail_on, all_findings = run.findings, run.fail_on, run.fail_on_unchanged
    bl = run.baseline
    judged = findings if (bl is None or all_findings) else [f for f in findings if f.baseline_state != "unchanged"]
    limit = SEVERITY_RANK.get(fail_on, 99)
    failing = [f for f in judged if fail_on != "never" and SEVERITY_RANK.get(f.severity or "", 0) >= limit]
    new = "new " if bl is not None and not all_findings else ""
    n = len(failing)
    if failing:
        what = (f"{n} {new}error{'s' if n != 1 else ''}" if fail_on == "error"
                else f"{n} {new}finding{'s' if n != 1 else ''} at or above {fail_on}")
        line = f"❌ **Blocks:** {what}"
    elif fail_on == "never":
        line = "✅ **Passes** (fail_on: never)"
    else:
        line = f"✅ **Passes:** no {new}" + ("errors" if fail_on == "error" else f"finding at or above {fail_on}")
    if bl is not None:
        unchanged = sum(1 for f in findings if f.baseline_state == "unchanged")
        parts = [f"{bl.new} new", f"{bl.updated} updated", f"{unchanged} unchanged"]
        if bl.absent:
            parts.append(f"{bl.absent} fixed")
        line += " · " + ", ".join(parts)
    return line


def _previous(run: RunReport) -> str:
    """What unchanged findings are unchanged from: the previous bundle(s)' names."""
    bl = run.baseline
    prev = sorted({v.rsplit("/", 1)[-1] for _b, v in (bl.previous if bl is not None else ()) if v})
    if not prev:
        return "the base"
    return ", ".join(prev) if len(prev) <= 3 else f"{len(prev)} previous bundles"


def _table(rows: Sequence[Finding], base: str, blob: str) -> list[str]:
    out = ["| | rule | where | message |", "|---|---|---|---|"]
    for f in rows:
        out.append(f"| {ICON.get(f.severity or '', '')} {f.severity} | {rule_link(f.rule, table=True)} | {where(f, base, blob)} "
                   f"| {text(f.message)} |")
    return out


def summary(report: Mapping[str, Any], findings: Sequence[Finding], title: str = "olm-check", limit: int = 200,
            fail_on: str = "error", blob: str = "", all_findings: bool = False) -> str:
    """``run_summary`` of a JSON report held as a dict and its findings (for library callers
    that hold the dict), with the verdict on ``fail_on``."""
    run = replace(RunReport.from_json(report, findings), fail_on=fail_on, fail_on_unchanged=all_findings)
    return run_summary(run, title, limit, blob)


def run_summary(run: RunReport, title: str = "olm-check", limit: int = 200, blob: str = "") -> str:
    """The summary a reviewer reads: the verdict first; the findings this change introduces
    (new and updated, each with its fix text); those unchanged from the previous bundle,
    collapsed; rows by severity, paths relative to the operator directory, linked to the line
    at the head (``blob``); a per-release table only when the releases differ. At most
    ``limit`` findings are listed."""
    findings = run.findings
    s = run.summary
    preview = run.ocp_not_ga
    base = operator_dir(run)
    out = [f"## {title}", "", verdict(run), ""]
    if not findings:
        out.append(f"{s.bundles} bundle(s) checked, no findings.")
    else:
        out.append(f"{s.bundles} bundle(s) checked: **{s.errors}** error(s), **{s.warnings}** warning(s), "
                   f"**{s.info}** info" + (f"; paths are relative to {code(base + '/', False)}." if base else "."))
    out.append("")
    if run.bundles:
        out.append("| bundle | CSV | label | published to OCP | installable on |")
        out.append("|---|---|---|---|---|")
        for b in run.bundles:
            out.append("| {} | {} | {} | {} | {} |".format(
                code(b.path), code(b.csv or "?"), code(b.ocp_label) if b.ocp_label is not None else "none",
                releases(b.ocp_versions, preview) or "none", releases(b.ocp_installable, preview) or "none"))
        out.append("")
        rows = _runs(per_release(run), preview)
        if len({counts for _rels, counts in rows}) > 1:  # only when the releases differ
            out.append("| OCP release | errors | warnings |")
            out.append("|---|---|---|")
            for rels, (e, w) in rows:
                out.append(f"| {releases(rels, preview)} | {e} | {w} |")
            out.append("")
    if not findings:
        return "\n".join(out) + "\n"
    ordered = _by_severity(findings)
    shown = 0
    if run.baseline is not None:
        introduced = [f for f in ordered if f.baseline_state != "unchanged"]
        unchanged = [f for f in ordered if f.baseline_state == "unchanged"]
        if introduced:
            out.append(f"### Introduced by this pull request ({len(introduced)})")
            out.append("")
            for f in introduced[:limit]:
                state = " (updated)" if f.baseline_state == "updated" else ""
                out.append(f"- {ICON.get(f.severity or '', '')} **{f.severity}** {rule_link(f.rule)} {where(f, base, blob)}: "
                           f"{text(f.message)}{state}")
                if f.detail:
                    out.append(f"  <br>{text(f.detail)}")
                if f.fix is not None and f.fix.description:
                    out.append(f"  <br>Fix (line {f.fix.line}): {text(f.fix.description)}")
            shown = min(len(introduced), limit)
            out.append("")
        if unchanged and shown < limit:
            rest = unchanged[:limit - shown]
            out.append(f"<details><summary>{len(unchanged)} unchanged from {text(_previous(run))} "
                       "(the catalog accepted them; they do not fail this run)</summary>")
            out.append("")
            out += _table(rest, base, blob)
            out.append("")
            out.append("</details>")
            shown += len(rest)
    else:
        out += _table(ordered[:limit], base, blob)
        shown = min(len(ordered), limit)
    if len(findings) > shown:
        out.append(f"\n…and {len(findings) - shown} more finding(s); see the JSON report.")
    return "\n".join(out) + "\n"


def _runs(table: list[tuple[str, tuple[int, int]]], not_ga: Sequence[str] = ()) -> list[tuple[list[str], tuple[int, int]]]:
    """[(release, counts)] -> [([releases], counts)] joining neighbours with equal counts
    (and the same GA status)."""
    out: list[tuple[list[str], tuple[int, int]]] = []
    for rel, counts in table:
        if out and out[-1][1] == counts and (rel in not_ga) == (out[-1][0][-1] in not_ga):
            out[-1][0].append(rel)
        else:
            out.append(([rel], counts))
    return out


def per_release(run: RunReport) -> list[tuple[str, tuple[int, int]]]:
    """[(release, (errors, warnings))] over every release any checked bundle targets."""
    rel: set[str] = set()
    for b in run.bundles:
        rel.update(b.ocp_versions)
    if not rel:
        return []
    findings = run.findings
    rows = []
    for r in sorted(rel, key=lambda v: tuple(int(x) for x in v.split("."))):
        e = sum(1 for f in findings if f.severity == "error" and (not f.ocp_versions or r in f.ocp_versions))
        w = sum(1 for f in findings if f.severity == "warning" and (not f.ocp_versions or r in f.ocp_versions))
        rows.append((r, (e, w)))
    return rows
