"""GitHub workflow commands (::error file=...::message); the Markdown job summary is
``markdown.summary`` (the CLI writes it to $GITHUB_STEP_SUMMARY)."""
from __future__ import annotations

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def esc_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def esc_prop(s: str) -> str:
    return esc_data(s).replace(":", "%3A").replace(",", "%2C")


def command(f) -> str:
    props = f"file={esc_prop(f.path)},line={f.line},col={f.column},title={esc_prop('olm-check ' + f.rule)}"
    return f"::{LEVEL.get(f.severity, 'error')} {props}::{esc_data(f.message)}"


def render(report, findings, rules) -> str:
    return "".join(command(f) + "\n" for f in findings)
