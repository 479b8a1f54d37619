"""The one summary comment on a pull request: found by its hidden marker and its author
(``common.Who``), updated in place, created when there is none."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..report.run import RunReport
from .client import ApiError, GitHub
from .common import MAX_COMMENT, Who, fitted_summary
from .publish import PublishContext, PublishResult


def sticky_body(run: RunReport, notes: Sequence[str], who: Optional[Who] = None, graphs: str = "", blob: str = "") -> str:
    """The comment: its marker, the summary (as many findings as fit), the graphs, the notes."""
    who = who or Who()
    head = who.summary_marker + "\n"
    tail = (f"\n{graphs}" if graphs else "") + "".join(f"\n{n}\n" for n in notes)
    budget = MAX_COMMENT - len(head) - len(tail) - 10
    return head + fitted_summary(run, budget, title=who.check_name, blob=blob) + tail


def sticky_comment(gh: GitHub, number: int, body: str, who: Optional[Who] = None) -> str:
    """Create or update the one summary comment; returns created | updated | unchanged."""
    who = who or Who()

    def mine() -> list[dict[str, Any]]:
        return [c for c in gh.paginate(f"issues/{number}/comments")
                if who.authored(c) and who.is_summary(c.get("body") or "")]

    found = mine()
    if found:
        c = found[0]
        if c.get("body") == body:
            return "unchanged"
        gh.patch(f"issues/comments/{c['id']}", {"body": body})
        return "updated"

    def recheck() -> Optional[dict[str, Any]]:
        try:
            return next(iter(mine()), None)
        except ApiError:
            return None

    gh.post(f"issues/{number}/comments", {"body": body}, recheck=recheck)
    return "created"


class SummaryComment:
    """The sticky summary comment, with the run's notes (but the change list's) and graphs."""

    name = "summary comment"
    fallback = False

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult:
        if ctx.gh is None or ctx.pull is None:
            return PublishResult()
        body = sticky_body(run, [n for n in ctx.notes if not n.startswith("Changed files")], ctx.who, ctx.graphs,
                           blob=ctx.blob)
        return PublishResult(log=sticky_comment(ctx.gh, ctx.pull.number, body, ctx.who))
