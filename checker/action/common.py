"""What the Action's publishers share: GitHub's limits, whose comments and check run are this
run's own (:class:`Who`), the order findings are shown in, cutting text to fit, and the
Markdown summary fitted to a budget. Publishers import this module; it imports none of them."""
from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Optional, Sequence
from urllib.parse import quote

from ..finding import SEVERITY_RANK, Finding
from ..report import markdown as md
from ..report.run import RunReport

CHECK_NAME = "olm-check"
SUMMARY_MARKER = "<!-- olm-check:summary -->"
MAX_INLINE = 30
ANNOTATIONS_PER_REQUEST = 50
MAX_ANNOTATIONS = 1000  # per check run: 20 writes (GitHub's write limits are per hour)
MAX_OUTPUT = 65535  # check-run output.summary / output.text, characters
MAX_COMMENT = 65536  # issue / review comment body, characters
MAX_STEP_SUMMARY = 1024 * 1024  # GITHUB_STEP_SUMMARY per step, bytes
WORKFLOW_COMMANDS_PER_LEVEL = 10  # GitHub shows at most 10 of each level per step
LEVEL = {"error": "failure", "warning": "warning", "info": "notice"}

Measure = Callable[[str], int]
_FP = re.compile(r"[0-9a-f]{16}")  # Finding.fingerprint()


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass
class Who:
    """Which check run and comments are this run's own: the ``name`` input namespaces the
    check run's name, the summary marker and the fingerprints (two runs on one PR keep
    apart); the token's identity says whose comments they are (``GET /user``'s login for a
    personal token; for an installation token -- GITHUB_TOKEN or a GitHub App's, which have
    no ``GET /user`` -- the App's bot, ``<slug>[bot]`` from the check run it created, or any
    Bot account when no check run was made: comments with the marker from a person are never
    taken for the action's)."""

    name: str = ""
    login: Optional[str] = None  # GET /user's, or the bot of the App that created the check run
    nonce: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def check_name(self) -> str:
        return f"{CHECK_NAME} ({self.name})" if self.name else CHECK_NAME

    @property
    def _ns(self) -> str:
        return f"olm-check:{quote(self.name, safe='')}:" if self.name else "olm-check:"

    @property
    def summary_marker(self) -> str:
        return f"<!-- {self._ns}summary -->" if self.name else SUMMARY_MARKER

    @property
    def fp_prefix(self) -> str:
        return f"<!-- {self._ns}fp="

    def fp_marker(self, fp: str) -> str:
        return f"{self.fp_prefix}{fp} -->"

    def fingerprint_of(self, body: str) -> Optional[str]:
        """The fingerprint of an inline comment of this run's namespace: its marker is the
        body's last line, where ``review.comment_body`` writes it, never a marker met
        earlier (quoted text from the pull request, a suggestion); another namespace's
        marker (another ``name``) is not this one's."""
        last = body.rstrip("\n").rsplit("\n", 1)[-1]
        if not (last.startswith(self.fp_prefix) and last.endswith(" -->")):
            return None
        fp = last[len(self.fp_prefix):-len(" -->")]
        return fp if _FP.fullmatch(fp) else None

    def is_summary(self, body: str) -> bool:
        """Whether ``body`` is this run's summary comment: its marker is the first line, where
        ``sticky.sticky_body`` writes it (never a marker quoted further down)."""
        return body.startswith(self.summary_marker + "\n")

    def authored(self, item: Mapping[str, Any]) -> bool:
        raw = item.get("user")
        user: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
        if self.login:
            return bool(user.get("login") == self.login)
        return bool(user.get("type") == "Bot")


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def by_severity(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-SEVERITY_RANK.get(f.severity or "", 0), f.path, f.line, f.column, f.rule))


def conclusion(findings: Sequence[Finding], fail_on: str, any_findings: Optional[bool] = None) -> str:
    """``findings``: those ``fail_on`` applies to (with a baseline, the new and updated ones);
    ``any_findings``: whether the run has any finding at all (neutral rather than success)."""
    limit = SEVERITY_RANK.get(fail_on, 99)
    if fail_on != "never" and any(SEVERITY_RANK.get(f.severity or "", 0) >= limit for f in findings):
        return "failure"
    return "neutral" if (findings if any_findings is None else any_findings) else "success"


def fit(text: str, limit: int, note: str = "\n\n…(cut to fit GitHub's limit; the JSON report has everything)\n",
        measure: Measure = len) -> str:
    """``text`` cut to ``limit`` (characters, or bytes with ``measure=utf8_len``)."""
    if measure(text) <= limit:
        return text
    room = max(0, limit - measure(note))
    if measure is len:
        return text[:room] + note
    return text.encode("utf-8")[:room].decode("utf-8", "ignore") + note


def fitted_summary(run: RunReport, budget: int, title: str = "olm-check", measure: Measure = len,
                   blob: str = "") -> str:
    """The summary (``markdown.run_summary``) with as many findings as fit in ``budget``
    (characters, or UTF-8 bytes with ``measure=utf8_len``: the job summary's 1 MiB is bytes)
    -- all when they fit. ``blob``: links to the head's lines."""
    limit = len(run.findings)
    while True:
        text = md.run_summary(run, title=title, limit=limit, blob=blob)
        size = measure(text)
        if size <= budget or limit == 0:
            return fit(text, budget, measure=measure)
        limit = max(0, min(limit - 1, int(limit * budget / size * 0.9)))


def summary_markdown(report: Mapping[str, Any], findings: Sequence[Finding], budget: int, title: str = "olm-check",
                     measure: Measure = len, view: Optional[Mapping[str, Any]] = None) -> str:
    """``fitted_summary`` of a JSON report held as a dict and its findings; ``view``:
    ``markdown.summary``'s fail_on, blob and all_findings."""
    v = dict(view or {})
    run = replace(RunReport.from_json(report, findings), fail_on=v.get("fail_on", "error"),
                  fail_on_unchanged=bool(v.get("all_findings", False)))
    return fitted_summary(run, budget, title, measure, blob=v.get("blob", ""))


MAX_GRAPHS = 24000  # characters: the graphs never crowd the findings out of a comment


def graphs_markdown(root: str, run: RunReport, log: Callable[[str], None] = print) -> str:
    """The "Upgrade graph" section (``graph_view.pr_markdown``) for the operators of the
    checked bundles; "" when there is none, when it is too long, or when drawing it failed
    (logged: the findings are what must get through)."""
    from ..graph_view import pr_markdown

    try:
        text = pr_markdown(root, [b.to_json() for b in run.bundles])
    except Exception as e:  # a bug in the drawing must not cost the summary
        log(f"olm-check: the upgrade graph could not be drawn ({type(e).__name__}: {e})")
        return ""
    if len(text) > MAX_GRAPHS:
        log(f"olm-check: the upgrade graph section ({len(text)} characters) is too long for the summary; left out")
        return ""
    return str(text)
