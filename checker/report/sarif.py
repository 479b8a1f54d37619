"""SARIF 2.1.0 for code scanning: one rule entry (with help) per rule id, repo-relative URIs."""
from __future__ import annotations

import json

from typing import Any, Mapping

from .. import INFORMATION_URI, TOOL_NAME, __version__
from ..finding import Finding
from .links import RULES_DOC, help_uri
from .run import RunReport

LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _name(rule_id: str) -> str:
    return "".join(p.capitalize() for p in rule_id.split("-"))


def _sentence(s: str) -> str:
    s = s.strip()
    return s if s.endswith((".", "!", "?")) else s + "."


def render(run: RunReport, rules: Mapping[str, Any]) -> str:
    """The SARIF log of ``run``: every rule of ``rules`` (the registry) and of a finding."""
    findings = run.findings
    used = sorted({f.rule for f in findings} | set(rules))
    index = {rid: i for i, rid in enumerate(used)}
    sarif_rules = []
    for rid in used:
        r = rules.get(rid)
        summary = r.summary if r is not None else "olm-check internal error"
        explanation = (r.explanation if r is not None and r.explanation else summary)
        sarif_rules.append({
            "id": rid,
            "name": _name(rid),
            "shortDescription": {"text": _sentence(summary)},
            "fullDescription": {"text": _sentence(explanation.split("\n\n")[0].replace("\n", " "))},
            "help": {"text": _sentence(explanation), "markdown": _sentence(explanation)},
            "helpUri": help_uri(rid) or RULES_DOC,
            "defaultConfiguration": {"level": LEVEL.get(r.headline() if r else "error", "error")},
            "properties": {"tags": ["olm", r.category if r else "internal"]},
        })
    results = []
    for f in findings:
        res: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": LEVEL.get(f.severity, "error"),
            "message": _message(f),
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": _artifact(f.path),
                    "region": {"startLine": max(1, f.line), "startColumn": max(1, f.column)},
                }
            }],
            "partialFingerprints": {"olmCheckFinding/v1": f.fingerprint()},
        }
        if getattr(f, "baseline_state", ""):  # against a base (checker/baseline.py): new, unchanged, updated
            res["baselineState"] = f.baseline_state
        props: dict[str, Any] = {}
        if f.ocp_versions:
            props["ocpVersions"] = list(f.ocp_versions)
        if f.bundle:
            props["bundle"] = f.bundle
        if props:
            res["properties"] = props
        results.append(res)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": sarif_rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The root of the checked repository."}}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _message(f: Finding) -> dict[str, str]:
    """The result's message: ``text`` the one-sentence message (what code scanning lists);
    ``markdown`` (SARIF 2.1.0 §3.11.4: the same message, formatted, for viewers that render
    it) adds the detail -- why it matters and the fix -- and the rule's page."""
    text = _sentence(f.message)
    if not f.detail:
        return {"text": text}
    parts = [_md(text), _md(f.detail)]
    uri = help_uri(f.rule)
    if uri:
        parts.append(f"[{f.rule}]({uri})")
    return {"text": text, "markdown": "\n\n".join(parts)}


def _md(s: str) -> str:
    """Text shown as itself in Markdown (no HTML, emphasis or links from a bundle's values)."""
    from .markdown import text

    return text(s)


def _uri(path: str) -> str:
    from urllib.parse import quote

    return quote(path.replace("\\", "/").lstrip("/"), safe="/-._~")


def _artifact(path: str) -> dict[str, str]:
    """A repository-relative path is relative to %SRCROOT%. A path outside the repository
    (absolute, or '../' as the user gave it) becomes an absolute file URI: a relative URI must
    not climb out of its base."""
    import os
    from pathlib import Path

    p = path.replace("\\", "/")
    if os.path.isabs(path) or p == ".." or p.startswith("../"):
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": _uri(p), "uriBaseId": "%SRCROOT%"}
