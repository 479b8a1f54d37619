"""The fallback when there is no check run (a fork pull request's read-only token, no
``checks: write``, a personal access token): the most severe findings as ``::error`` /
``::warning`` / ``::notice`` workflow commands of the step (GitHub shows 10 of each)."""
from __future__ import annotations

from typing import Sequence, TextIO

from ..finding import Finding
from ..report import github as wfcmd
from ..report.run import RunReport
from .common import WORKFLOW_COMMANDS_PER_LEVEL, by_severity
from .publish import PublishContext, PublishResult


def workflow_commands(findings: Sequence[Finding], out: TextIO) -> int:
    """``::error``/``::warning``/``::notice`` for the most severe findings, at most 10 each."""
    count: dict[str, int] = {}
    n = 0
    for f in by_severity(findings):
        level = f.severity or ""
        if count.get(level, 0) >= WORKFLOW_COMMANDS_PER_LEVEL:
            continue
        count[level] = count.get(level, 0) + 1
        out.write(wfcmd.command(f) + "\n")
        n += 1
    return n


class WorkflowCommands:
    """Annotations of the step instead of the check run's."""

    name = "workflow commands"
    fallback = False

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult:
        if not run.findings:
            return PublishResult()
        shown = workflow_commands(run.findings, ctx.out)
        return PublishResult(notes=[f"No check run: the {shown} most severe finding(s) are shown as annotations of "
                                    "this step (GitHub shows 10 per severity), and every finding is listed above."])
