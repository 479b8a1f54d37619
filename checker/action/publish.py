"""Where the Action puts a run's report: its publishers, behind one small interface (as
reviewdog's services are), and the order and fallbacks they run in (design.md, "The action").

A publisher is anything with a ``name``, a ``fallback`` flag and ``publish(run, ctx) ->
PublishResult``. Each stands alone: :func:`publish_all` runs them in order, and a refusal or
a failure of one (an ``ApiError``, a bug) is a note in the job summary, never the end of the
others. When a publisher whose ``fallback`` is set (the check run) fails or is not made, the
most severe findings are shown as workflow-command annotations of the step instead.

Which publishers run: ``choose.choose``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, TextIO

from ..finding import Finding
from ..report.run import RunReport
from .client import ApiError, GitHub, ReadOnly
from .common import Who
from .env import PullRequest


@dataclass
class PublishContext:
    """What publishers need besides the report, and what they pass on to each other."""

    gh: Optional[GitHub]  # None: no token
    who: Who
    log: Callable[[str], None]
    out: TextIO  # the step's stdout (workflow commands)
    head_sha: str = ""
    pull: Optional[PullRequest] = None
    details_url: Optional[str] = None
    right: dict[str, set[int]] = field(default_factory=dict)  # path -> RIGHT-side lines of the change's diff
    blob: str = ""  # ".../blob/<head sha>/": summaries link findings to the head's lines
    gate: list[Finding] = field(default_factory=list)  # the findings fail_on applies to
    notes: list[str] = field(default_factory=list)  # said in the summaries (the change list, the baseline, ...)
    graphs: str = ""  # the changed operators' upgrade graphs (Markdown)
    # passed on: the findings meant for inline comments (the check run does not annotate
    # them), the fingerprints the review placed, and the check run that was made
    inline: list[Finding] = field(default_factory=list)
    placed: set[str] = field(default_factory=set)
    check_run: Optional[dict[str, Any]] = None


@dataclass
class PublishResult:
    """``log``: what the job log says of it (``olm-check: NAME: LOG``; None: nothing);
    ``notes``: what the job summary says at its end; ``fallback``: the findings still need
    showing as workflow commands."""

    log: Optional[str] = None
    notes: list[str] = field(default_factory=list)
    fallback: bool = False


class Publisher(Protocol):
    name: str  # as notes and the log name it: "check run", "review", ...
    fallback: bool  # a failure of it is made up for by workflow-command annotations

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult: ...


def refusal(name: str, e: ApiError) -> str:
    """The note of a publisher GitHub refused or failed."""
    if isinstance(e, ReadOnly) or e.status == 403:
        why = ("the Checks API takes only GitHub App tokens (GITHUB_TOKEN or an App's), not a personal "
               "access token" if "github app" in e.message.lower() else
               f"the token may not write it: `permissions:` needs "
               f"`{'checks' if name == 'check run' else 'pull-requests'}: write`")
        return (f"The {name} was refused ({e.status} {e.message}): {why}. The other reports were "
                "still made; the findings are all above and in the JSON report.")
    return f"The {name} could not be posted ({e.status} {e.message}); the findings are all above and in the JSON report."


def publish_all(publishers: list[Publisher], run: RunReport, ctx: PublishContext) -> PublishResult:
    """Run ``publishers`` in order, each on its own; their notes and whether a fallback is
    needed, together."""
    out = PublishResult()
    for p in publishers:
        try:
            got = p.publish(run, ctx)
        except ApiError as e:
            out.fallback = out.fallback or p.fallback
            out.notes.append(refusal(p.name, e))
            ctx.log(f"olm-check: {p.name} failed: {e}")
            continue
        except Exception as e:  # a bug here must not cost the other publishers or the exit code
            out.fallback = out.fallback or p.fallback
            out.notes.append(f"The {p.name} failed inside olm-check ({type(e).__name__}); the findings are all above.")
            ctx.log(f"olm-check: {p.name} failed: {type(e).__name__}: {e}")
            continue
        if got.log is not None:
            ctx.log(f"olm-check: {p.name}: {got.log}")
        out.notes += got.notes
        out.fallback = out.fallback or got.fallback
    return out
