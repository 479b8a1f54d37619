"""GitHub workflow commands (::error file=...::message), and keeping text from the checked
tree from becoming one; the Markdown job summary is ``markdown.summary`` (the CLI writes it
to $GITHUB_STEP_SUMMARY).

The runner reads every line a step prints (stdout and stderr, split at ``\\r`` and ``\\n``)
and acts on it when, after leading whitespace, it starts with ``::name ...::`` or when it
holds ``##[name ...]`` anywhere (actions/runner, src/Runner.Common/ActionCommand.cs,
``TryParseV2``/``TryParse``). So text a pull request controls (a displayName, a label, a
file name) is either escaped into a command's data (``esc_data``/``esc_prop``, the runner's
own escaping), or printed inside a ``::stop-commands::TOKEN`` window (``stop_commands``)
whose random token it cannot know, or made inert line by line (``inert``).
"""
from __future__ import annotations

import re
import secrets
from typing import Optional, Sequence

from ..finding import Finding
from .run import RunReport

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
_BREAKS = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def esc_data(s: str) -> str:
    """A command's data (after the second ``::``): ``%``, CR and LF escaped, so it stays
    on one line and the runner unescapes it back."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def esc_prop(s: str) -> str:
    """A command property's value: as data, and ``:`` and ``,`` too (they end it)."""
    return esc_data(s).replace(":", "%3A").replace(",", "%2C")


def workflow_command(name: str, data: str, props: Optional[dict[str, object]] = None) -> str:
    """``::name k=v,...::data`` with every value escaped."""
    p = ",".join(f"{k}={esc_prop(str(v))}" for k, v in (props or {}).items())
    return f"::{name}{' ' + p if p else ''}::{esc_data(data)}"


def command(f: Finding, not_ga: Sequence[str] = ()) -> str:
    """A finding as an annotation: its message and OpenShift releases (``text.finding_line``'s
    ``[OCP ...]``)."""
    from .text import _ranges

    ocp = f" [OCP {_ranges(f.ocp_versions, not_ga)}]" if f.ocp_versions else ""
    # against a baseline: what the base already had says so ("new" is what an annotation is by default)
    state = f" ({f.baseline_state})" if getattr(f, "baseline_state", "") in ("unchanged", "updated") else ""
    return workflow_command(LEVEL.get(f.severity, "error"), f.message + ocp + state,
                            {"file": f.path, "line": f.line, "col": f.column, "title": "olm-check " + f.rule})


def inert(text: str) -> str:
    """``text`` as log lines the runner does not act on: every line break starts a line,
    so a line that starts with ``::`` (after whitespace) gets a visible ``| `` before it, and
    ``##[`` anywhere becomes ``##|[``."""
    out = []
    for line in _BREAKS.split(text):
        line = line.replace("##[", "##|[")
        if line.lstrip().startswith("::"):
            line = "| " + line
        out.append(line)
    return "\n".join(out)


def stop_commands(text: str, token: Optional[str] = None) -> str:
    """``text`` between ``::stop-commands::TOKEN`` and ``::TOKEN::``: the runner processes
    no command in between but the one that resumes it. The token is random per call (and
    never one that occurs in the text), so the text cannot end the window early."""
    lower = text.lower()
    while token is None or token.lower() in lower:
        token = "olm-check-" + secrets.token_hex(16)
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


def render(run: RunReport) -> str:
    """Every finding of ``run`` as an annotation, a line each."""
    return "".join(command(f, run.ocp_not_ga) + "\n" for f in run.findings)
