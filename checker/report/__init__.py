"""The run report -> text, JSON, SARIF, Markdown, workflow commands. Reporters know nothing of
rules' internals or of GitHub's API; each is a function of one ``run.RunReport`` (and its
options)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Mapping, Optional, Sequence

from ..finding import Finding
from .links import RULES_DOC, help_uri  # noqa: F401 (the reporters' and the Action's links)
from .run import RunReport

if TYPE_CHECKING:
    from .text import Style


def not_ga(table: Any) -> list[str]:
    """The releases of an ``OcpTable`` that are not generally available yet (the report's
    ``ocp_not_ga``): every place that prints releases marks them "(not GA)"."""
    return [r.ocp for r in table.releases if not r.ga]


def report_chunks(fmt: str, run: RunReport, rules: Mapping[str, Any], style: Optional[Style] = None) -> Iterator[str]:
    """``render_report``'s text in pieces (the JSON report line by line; other formats whole)."""
    if fmt == "json":
        from .jsonfmt import chunks

        yield from chunks(run)
    else:
        yield render_report(fmt, run, rules, style)


def render_report(fmt: str, run: RunReport, rules: Mapping[str, Any], style: Optional[Style] = None) -> str:
    """The report in ``fmt`` (``text`` takes a ``Style``; ``rules``: the rule registry, for SARIF)."""
    if fmt == "json":
        from .jsonfmt import render as render_json

        return render_json(run)
    if fmt == "sarif":
        from .sarif import render as render_sarif

        return render_sarif(run, rules)
    if fmt == "github":
        from .github import render as render_github

        return render_github(run)
    from .text import render as render_text

    return render_text(run, style)


def render(fmt: str, report: Mapping[str, Any], findings: Sequence[Finding], rules: Mapping[str, Any]) -> str:
    """``render_report`` of a JSON report held as a dict (``api.Result.report``) and its
    findings: for library callers that hold the dict."""
    return render_report(fmt, RunReport.from_json(report, findings), rules)
