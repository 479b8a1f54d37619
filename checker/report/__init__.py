"""Findings -> reports. Reporters know nothing of rules' internals or of GitHub's API."""
from __future__ import annotations

from .. import TOOL_NAME, __version__

from .links import RULES_DOC, help_uri  # noqa: F401 (the reporters' and the Action's links)


def not_ga(table) -> list:
    """The releases of an ``OcpTable`` that are not generally available yet (the report's
    ``ocp_not_ga``): every place that prints releases marks them "(not GA)"."""
    return [r.ocp for r in table.releases if not r.ga]


def bundle_entry(b) -> dict:
    vi = b.versions
    return {
        "path": b.rel,
        "package": b.package,
        "csv": b.csv_name,
        "mediatype": b.mediatype,
        "ocp_label": vi.label,
        "ocp_versions": list(vi.ocp_versions),
        "ocp_installable": list(vi.ocp_installable),
    }


def facts_entry(f) -> dict:
    """The report's entry for a bundle, from its ``BundleFacts`` (the bundle itself is gone
    by the time the report is built)."""
    return {
        "path": f.rel,
        "package": f.package,
        "csv": f.csv_name,
        "mediatype": f.mediatype,
        "ocp_label": f.label,
        "ocp_versions": list(f.ocp_versions),
        "ocp_installable": list(f.ocp_installable),
    }


def build(bundles: list, findings: list, ocp_not_ga=()) -> dict:
    """The JSON report (the documented contract). ``ocp_not_ga``: the releases of the run's
    release table that are not GA (``not_ga``)."""
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    return {
        "tool": {"name": TOOL_NAME, "version": __version__},
        "bundles": bundles,
        "ocp_not_ga": list(ocp_not_ga),
        "findings": [f.to_json() for f in findings],
        "summary": {"bundles": len(bundles), "errors": counts["error"], "warnings": counts["warning"], "info": counts["info"]},
    }


def render_chunks(fmt: str, report: dict, findings: list, rules: dict):
    """``render``'s text in pieces (the JSON report line by line; other formats whole)."""
    if fmt == "json":
        from .jsonfmt import chunks

        yield from chunks(report, findings, rules)
    else:
        yield render(fmt, report, findings, rules)


def render(fmt: str, report: dict, findings: list, rules: dict) -> str:
    if fmt == "json":
        from .jsonfmt import render as r
    elif fmt == "sarif":
        from .sarif import render as r
    elif fmt == "github":
        from .github import render as r
    else:
        from .text import render as r
    return r(report, findings, rules)
