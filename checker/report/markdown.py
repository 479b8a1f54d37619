"""Markdown for people (job summary, PR comment). Bundle-supplied text is made inert: shown
in code spans or HTML-escaped, so a bundle cannot mention people, inject HTML or links, or
break a table."""
from __future__ import annotations

import html
import re

from .links import help_uri
from ..versions import release_ranges as _ranges

ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


def code(s, table: bool = True) -> str:
    """An inline code span holding ``s`` verbatim (backticks in it handled). ``table``: the
    span sits in a table cell, where a ``|`` must be escaped (GitHub un-escapes it there);
    elsewhere it is left as it is (an escape would show)."""
    s = str(s).replace("\r", " ").replace("\n", " ")
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
_AUTOLINK = re.compile(r"(?i)[@#]|\b(?:https?|ftp|mailto)(?=:)|\bwww(?=\.)|\bGH(?=-\d)")


def text(s) -> str:
    """Prose from a bundle, made inert for GitHub Markdown (tables included): no HTML, no
    @mentions, no issue references, no autolinks or links, no emphasis, no table breaks."""
    s = str(s).replace("\r", " ").replace("\n", " ")
    s = html.escape(s, quote=False)  # & < > -> entities: no HTML, no <autolinks>
    s = _MD_SPECIAL.sub(r"\\\1", s)  # markdown punctuation is shown as itself
    return _AUTOLINK.sub(lambda m: m.group(0) + "&#8203;", s)


def releases(versions: list, not_ga=()) -> str:
    """'4.12-4.22, 4.23 (not GA)': the releases as every report prints them."""
    return _ranges(versions, not_ga)


def rule_link(rule_id: str, table: bool = False) -> str:
    """The rule id as code, linked to its page (docs/rules.md) when it has one."""
    uri = help_uri(rule_id)
    return f"[{code(rule_id, table)}]({uri})" if uri else code(rule_id, table)


def summary(report: dict, findings: list, title: str = "olm-check", limit: int = 200) -> str:
    s = report["summary"]
    preview = report.get("ocp_not_ga") or ()
    out = [f"## {title}", ""]
    if not findings:
        out.append(f"✅ {s['bundles']} bundle(s) checked, no findings.")
    else:
        out.append(f"{s['bundles']} bundle(s) checked: **{s['errors']}** error(s), **{s['warnings']}** warning(s), **{s['info']}** info.")
    out.append("")
    if report["bundles"]:
        out.append("| bundle | CSV | label | published to OCP | installable on |")
        out.append("|---|---|---|---|---|")
        for b in report["bundles"]:
            out.append("| {} | {} | {} | {} | {} |".format(
                code(b["path"]), code(b["csv"] or "?"), code(b["ocp_label"]) if b["ocp_label"] is not None else "none",
                releases(b["ocp_versions"], preview) or "none", releases(b["ocp_installable"], preview) or "none"))
        out.append("")
        table = per_release(report, findings)
        if table:
            out.append("| OCP release | errors | warnings |")
            out.append("|---|---|---|")
            # consecutive releases with the same counts (and the same GA status): one row
            for rels, (e, w) in _runs(table, preview):
                out.append(f"| {releases(rels, preview)} | {e} | {w} |")
            out.append("")
    if findings:
        out.append("| | rule | where | message |")
        out.append("|---|---|---|---|")
        for f in findings[:limit]:
            out.append(f"| {ICON.get(f.severity, '')} {f.severity} | {rule_link(f.rule, table=True)} | {code(f'{f.path}:{f.line}')} | {text(f.message)} |")
        if len(findings) > limit:
            out.append(f"\n…and {len(findings) - limit} more finding(s); see the JSON report.")
    return "\n".join(out) + "\n"


def _runs(table: list, not_ga=()) -> list:
    """[(release, counts)] -> [([releases], counts)] joining neighbours with equal counts
    (and the same GA status)."""
    out: list = []
    for rel, counts in table:
        if out and out[-1][1] == counts and (rel in not_ga) == (out[-1][0][-1] in not_ga):
            out[-1][0].append(rel)
        else:
            out.append(([rel], counts))
    return out


def per_release(report: dict, findings: list) -> list:
    """[(release, (errors, warnings))] over every release any checked bundle targets."""
    rel = set()
    for b in report["bundles"]:
        rel.update(b["ocp_versions"])
    if not rel:
        return []
    key = lambda v: tuple(int(x) for x in v.split("."))
    rows = []
    for r in sorted(rel, key=key):
        e = sum(1 for f in findings if f.severity == "error" and (not f.ocp_versions or r in f.ocp_versions))
        w = sum(1 for f in findings if f.severity == "warning" and (not f.ocp_versions or r in f.ocp_versions))
        rows.append((r, (e, w)))
    return rows
