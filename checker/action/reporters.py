"""Where the action puts findings, in design.md's order; each reporter stands alone.

1. job summary and step outputs (no token needed), JSON report, SARIF;
2. the check run ``olm-check`` (``olm-check (NAME)``) on the head commit, created completed,
   every finding an annotation (50 per request);
3. one review with inline comments on RIGHT-side diff lines (errors and warnings, most
   severe first, at most ``MAX_INLINE``), each with a hidden fingerprint; a re-run adds no
   duplicate and deletes its own stale or outdated comments that nobody answered;
4. one sticky summary comment, found by its marker and author, updated in place;
5. when the check run cannot be posted (a fork PR's read-only token, no ``checks: write``,
   a personal access token): workflow-command annotations for the most severe findings,
   and a note in the summary.

Whose comments are the action's own, and which run's: :class:`Who`.

Reporters know findings and the report, never a rule.
"""
from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Optional
from urllib.parse import quote

from ..finding import SEVERITY_RANK
from ..report import github as wfcmd
from ..report import help_uri
from ..report import markdown as md
from .client import ApiError

CHECK_NAME = "olm-check"
SUMMARY_MARKER = "<!-- olm-check:summary -->"
FP_MARKER = "<!-- olm-check:fp={} -->"
MAX_INLINE = 30
ANNOTATIONS_PER_REQUEST = 50
MAX_OUTPUT = 65535  # check-run output.summary / output.text, characters
MAX_COMMENT = 65536  # issue / review comment body, characters
MAX_STEP_SUMMARY = 1024 * 1024  # GITHUB_STEP_SUMMARY per step, bytes
WORKFLOW_COMMANDS_PER_LEVEL = 10  # GitHub shows at most 10 of each level per step
LEVEL = {"error": "failure", "warning": "warning", "info": "notice"}


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
        start = body.find(self.fp_prefix)
        if start < 0:
            return None
        end = body.find(" -->", start)
        return body[start + len(self.fp_prefix):end] if end > start else None

    def authored(self, item: dict) -> bool:
        user = item.get("user") if isinstance(item.get("user"), dict) else {}
        if self.login:
            return user.get("login") == self.login
        return user.get("type") == "Bot"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def by_severity(findings: list) -> list:
    return sorted(findings, key=lambda f: (-SEVERITY_RANK.get(f.severity, 0), f.path, f.line, f.column, f.rule))


def conclusion(findings: list, fail_on: str, any_findings: Optional[bool] = None) -> str:
    """``findings``: those ``fail_on`` applies to (with a baseline, the new and updated ones);
    ``any_findings``: whether the run has any finding at all (neutral rather than success)."""
    limit = SEVERITY_RANK.get(fail_on, 99)
    if fail_on != "never" and any(SEVERITY_RANK.get(f.severity, 0) >= limit for f in findings):
        return "failure"
    return "neutral" if (findings if any_findings is None else any_findings) else "success"


def fit(text: str, limit: int, note: str = "\n\n…(cut to fit GitHub's limit; the JSON report has everything)\n",
        measure=len) -> str:
    """``text`` cut to ``limit`` (characters, or bytes with ``measure=utf8_len``)."""
    if measure(text) <= limit:
        return text
    room = max(0, limit - measure(note))
    if measure is len:
        return text[:room] + note
    return text.encode("utf-8")[:room].decode("utf-8", "ignore") + note


def summary_markdown(report: dict, findings: list, budget: int, title: str = "olm-check", measure=len,
                     view: Optional[dict] = None) -> str:
    """The summary with as many findings as fit in ``budget`` (characters, or UTF-8 bytes
    with ``measure=utf8_len``: the job summary's 1 MiB is bytes) -- all when they fit.
    ``view``: ``markdown.summary``'s fail_on, blob (links to the head) and all_findings."""
    limit = len(findings)
    while True:
        text = md.summary(report, findings, title=title, limit=limit, **(view or {}))
        size = measure(text)
        if size <= budget or limit == 0:
            return fit(text, budget, measure=measure)
        limit = max(0, min(limit - 1, int(limit * budget / size * 0.9)))


# --- 1. job summary, outputs, files ------------------------------------------------------

def write_outputs(path: Optional[str], values: dict) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        for name, value in values.items():
            value = str(value)
            if "\n" in value:
                delim = f"olm_check_{uuid.uuid4().hex}"
                fh.write(f"{name}<<{delim}\n{value}\n{delim}\n")
            else:
                fh.write(f"{name}={value}\n")


def append_summary(path: Optional[str], text: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


# --- 2. check run ------------------------------------------------------------------------

def _releases(f, not_ga=()) -> str:
    return md.releases(f.ocp_versions, not_ga)


def annotation(f, not_ga=()) -> dict:
    explained = "".join(f"\n\n{x}" for x in (f.detail, help_uri(f.rule)) if x)
    a = {"path": f.path, "start_line": max(1, f.line), "end_line": max(1, f.line),
         "annotation_level": LEVEL.get(f.severity, "failure"),
         "message": fit(f.message + (f" [OCP {_releases(f, not_ga)}]" if f.ocp_versions else "") + explained, 64000, " …"),
         "title": f"olm-check {f.rule}"[:255]}
    if f.column and f.column > 1:
        a["start_column"] = a["end_column"] = f.column
    if f.fix is not None:
        a["raw_details"] = fit(f"Fix (line {f.fix.line}): {f.fix.description}\n{f.fix.replacement}", 64000, " …")
    return a


def find_check_run(gh, who: Who, head_sha: str) -> Optional[dict]:
    """This run's check run, if a create that failed did happen (its ``external_id``)."""
    try:
        data = gh.get(f"commits/{head_sha}/check-runs", params={"check_name": who.check_name, "filter": "all",
                                                               "per_page": 100})
    except ApiError:
        return None
    runs = data.get("check_runs") if isinstance(data, dict) else None
    return next((r for r in runs or [] if isinstance(r, dict) and r.get("external_id") == who.nonce), None)


def check_run(gh, head_sha: str, report: dict, findings: list, fail_on: str, details_url: Optional[str],
              who: Optional[Who] = None, gate: Optional[list] = None, inline: Optional[list] = None,
              view: Optional[dict] = None) -> dict:
    """The check run with every finding as an annotation. It is created ``completed`` (the
    conclusion is known before anything is posted), with the first 50 annotations; the rest
    are appended by updates. So it is never left ``in_progress`` (a required check would hang):
    when an update fails the run keeps what it has, and says so in its summary."""
    who = who or Who()
    skip = {id(f) for f in inline or ()}  # posted inline (review comments): not annotated twice
    s = report["summary"]
    title = (f"{s['errors']} error(s), {s['warnings']} warning(s), {s['info']} info in {s['bundles']} bundle(s)"
             if findings else f"No findings in {s['bundles']} bundle(s)")
    summary = summary_markdown(report, findings, MAX_OUTPUT, view=view)
    ann = [annotation(f, report.get("ocp_not_ga") or ()) for f in by_severity(findings) if id(f) not in skip]
    batches = [ann[i:i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(ann), ANNOTATIONS_PER_REQUEST)] or [[]]
    now = _now()
    body = {"name": who.check_name, "head_sha": head_sha, "status": "completed",
            "conclusion": conclusion(findings if gate is None else gate, fail_on, bool(findings)), "started_at": now, "completed_at": now,
            "external_id": who.nonce,
            "output": {"title": title, "summary": summary, "annotations": batches[0]}}
    if details_url:
        body["details_url"] = details_url
    run = gh.post("check-runs", body, recheck=lambda: find_check_run(gh, who, head_sha))
    run_id = run["id"]
    app = run.get("app") if isinstance(run.get("app"), dict) else {}
    if not who.login and isinstance(app.get("slug"), str) and app["slug"]:
        # an installation token has no GET /user, but its check run names its App, whose
        # bot account is <slug>[bot] (github-actions[bot] for GITHUB_TOKEN)
        who.login = f"{app['slug']}[bot]"
    sent = len(batches[0])
    failed: Optional[ApiError] = None
    for batch in batches[1:]:
        try:
            gh.patch(f"check-runs/{run_id}", {"output": {"title": title, "summary": summary, "annotations": batch}})
            sent += len(batch)
        except ApiError as e:
            failed = e
            break
    if failed is not None:
        note = (f"**{len(ann) - sent} of {len(ann)} annotations could not be added** ({failed.status} "
                f"{md.text(failed.message)}); every finding is listed below and in the JSON report.\n\n")
        try:
            gh.patch(f"check-runs/{run_id}", {"output": {"title": title, "summary": fit(note + summary, MAX_OUTPUT)}})
        except ApiError:
            pass
    ordered = [f for f in by_severity(findings) if id(f) not in skip]
    # (the "_" keys are for the Action, not for the log line)
    return {"id": run_id, "annotations": sent, "missing": len(ann) - sent, "_title": title, "_summary": summary,
            "_unsent": ordered[sent:], "_error": f"{failed.status} {failed.message}" if failed is not None else ""}


def add_annotations(gh, run: dict, findings: list, not_ga=()) -> int:
    """Annotate ``findings`` on the check run after all (those meant for inline comments
    that did not get there); returns how many went through."""
    ann = [annotation(f, not_ga) for f in by_severity(findings)]
    sent = 0
    for i in range(0, len(ann), ANNOTATIONS_PER_REQUEST):
        batch = ann[i:i + ANNOTATIONS_PER_REQUEST]
        try:
            gh.patch(f"check-runs/{run['id']}", {"output": {"title": run["_title"], "summary": run["_summary"],
                                                            "annotations": batch}})
        except ApiError:
            break
        sent += len(batch)
    return sent


# --- 3. review ---------------------------------------------------------------------------

def place(f, right: dict) -> Optional[int]:
    """The RIGHT-side line an inline comment of ``f`` goes on: the line of its machine fix
    when the diff shows it (so the fix is a suggestion to accept there), else its own line;
    None when neither is on the diff."""
    lines = right.get(f.path, ())
    if f.fix is not None and f.fix.line in lines:
        return f.fix.line
    return f.line if f.line in lines else None


def comment_body(f, who: Optional[Who] = None, not_ga=(), line: Optional[int] = None) -> str:
    """An inline comment: the message, the detail (why, and the fix), the OpenShift releases,
    the rule's page, the machine fix as a suggestion (when the comment is on the fix's line:
    ``line``, by default the finding's)."""
    who = who or Who()
    line = f.line if line is None else line
    icon = md.ICON.get(f.severity, "")
    lines = [f"{icon} **{f.severity}** {md.rule_link(f.rule)}: {md.text(f.message)}"]
    if f.detail:
        lines.append(f"\n{md.text(f.detail)}")
    if f.ocp_versions:
        lines.append(f"\nOpenShift releases: {md.text(_releases(f, not_ga))}")
    if f.fix is not None and f.fix.line == line:
        repl = f.fix.replacement
        longest = max((len(x) for x in re.findall(r"`{3,}", repl)), default=2)
        fence = "`" * max(3, longest + 1)
        if f.fix.description:
            lines.append(f"\n{md.text(f.fix.description)}")
        # an empty block deletes the line; a block holding an empty line would blank it
        lines.append(f"\n{fence}suggestion\n{repl}\n{fence}" if repl else f"\n{fence}suggestion\n{fence}")
    lines.append("\n" + who.fp_marker(f.fingerprint()))
    return fit("\n".join(lines), MAX_COMMENT)


def inline_candidates(findings: list, right: dict) -> tuple:
    """(inline, elsewhere): findings on RIGHT-side diff lines (``place``) -- errors and
    warnings, and any finding with a machine fix (its suggestion is accepted in one click),
    not the ones unchanged from the base --
    at most MAX_INLINE, one per fingerprint; everything else goes to the summary and the check
    run. Order: most severe first; within a severity, findings with a fix first, then files
    taken in turn (one noisy file cannot take every slot)."""
    inline, seen = [], set()
    rank: dict = {}
    order = []
    for f in by_severity(findings):
        if getattr(f, "baseline_state", "") == "unchanged":
            continue  # what the base already had is not re-reported inline (the check run marks it)
        line = place(f, right)
        if line is not None:
            n = rank.get((f.severity, f.path), 0)
            rank[(f.severity, f.path)] = n + 1
            order.append((-SEVERITY_RANK.get(f.severity, 0), f.fix is None, n, f.path, line, f.column, f.rule, id(f), f))
    order.sort(key=lambda t: t[:-1])
    for *_key, f in order:
        if (f.severity not in ("error", "warning") and f.fix is None) or len(inline) >= MAX_INLINE:
            continue
        if f.fingerprint() not in seen:
            seen.add(f.fingerprint())
            inline.append(f)
    placed = {id(f) for f in inline}
    return inline, [f for f in findings if id(f) not in placed]


def outdated(c: dict) -> bool:
    """A line comment GitHub no longer places on the diff (its line changed since)."""
    return c.get("subject_type") != "file" and c.get("line") is None


def review(gh, number: int, head_sha: str, findings: list, right: dict, log=print, who: Optional[Who] = None,
           not_ga=(), placed: Optional[set] = None) -> dict:
    """Post new inline comments in one review, delete own stale ones without replies. An
    own comment GitHub shows as outdated does not count as posted: its finding is posted
    again where it now is, and the outdated one goes (unless someone answered it).
    ``placed``: filled with the fingerprints now shown inline (kept or posted), which the
    check run then does not repeat as annotations."""
    placed = set() if placed is None else placed
    who = who or Who()
    existing = gh.paginate(f"pulls/{number}/comments")
    replied = {c.get("in_reply_to_id") for c in existing if c.get("in_reply_to_id")}
    own = [c for c in existing if who.authored(c) and who.fingerprint_of(c.get("body") or "")]
    live = [c for c in own if not outdated(c)]
    have = {who.fingerprint_of(c["body"]) for c in live}
    current = {f.fingerprint() for f in findings}
    inline, _rest = inline_candidates(findings, right)
    new = [f for f in inline if f.fingerprint() not in have]
    placed.update(f.fingerprint() for f in inline if f.fingerprint() in have)
    result = {"posted": 0, "file_level": 0, "unplaced": 0, "deleted": 0, "kept": len(have & current)}
    if new:
        comments = []
        for f in new:
            line = place(f, right) or f.line
            comments.append({"path": f.path, "line": line, "side": "RIGHT", "body": comment_body(f, who, not_ga, line)})
        n = len(new)
        body = (f"olm-check{' (' + md.text(who.name) + ')' if who.name else ''} found {n} problem{'s' if n != 1 else ''} "
                "on lines this pull request changes (the summary comment and the check run list every finding)."
                f"\n<!-- olm-check:run={who.nonce} -->")

        def find_review():
            try:
                return next((r for r in gh.paginate(f"pulls/{number}/reviews")
                             if isinstance(r, dict) and who.nonce in (r.get("body") or "")), None)
            except ApiError:
                return None

        try:
            gh.post(f"pulls/{number}/reviews", {"commit_id": head_sha, "event": "COMMENT", "body": body,
                                                "comments": comments}, recheck=find_review)
            result["posted"] = n
            placed.update(f.fingerprint() for f in new)
        except ApiError as e:
            if e.status != 422:
                raise
            log(f"olm-check: the review was refused ({e.message}); posting the comments one by one")
            for f, c in zip(new, comments):
                marker = who.fp_marker(f.fingerprint())

                def find_comment(marker=marker):
                    try:
                        return next((x for x in gh.paginate(f"pulls/{number}/comments")
                                     if who.authored(x) and marker in (x.get("body") or "") and not outdated(x)), None)
                    except ApiError:
                        return None

                try:
                    gh.post(f"pulls/{number}/comments", {"commit_id": head_sha, **c}, recheck=find_comment)
                    result["posted"] += 1
                    placed.add(f.fingerprint())
                    continue
                except ApiError as e1:
                    if e1.status != 422:
                        raise
                try:
                    gh.post(f"pulls/{number}/comments", {"commit_id": head_sha, "path": f.path,
                                                         "body": c["body"], "subject_type": "file"},
                            recheck=find_comment)
                    result["file_level"] += 1
                    placed.add(f.fingerprint())
                except ApiError as e2:
                    if e2.status != 422:
                        raise
                    result["unplaced"] += 1
    for c in own:
        fp = who.fingerprint_of(c["body"])
        if (fp in current and not outdated(c)) or c["id"] in replied:
            continue
        gh.delete(f"pulls/comments/{c['id']}")
        result["deleted"] += 1
    return result


# --- 4. sticky summary comment -------------------------------------------------------------

def sticky_body(report: dict, findings: list, notes: list, who: Optional[Who] = None, graphs: str = "",
                view: Optional[dict] = None) -> str:
    who = who or Who()
    head = who.summary_marker + "\n"
    tail = (f"\n{graphs}" if graphs else "") + "".join(f"\n{n}\n" for n in notes)
    budget = MAX_COMMENT - len(head) - len(tail) - 10
    return head + summary_markdown(report, findings, budget, title=who.check_name, view=view) + tail


def sticky_comment(gh, number: int, body: str, who: Optional[Who] = None) -> str:
    """Create or update the one summary comment; returns created | updated | unchanged."""
    who = who or Who()

    def mine() -> list:
        return [c for c in gh.paginate(f"issues/{number}/comments")
                if who.authored(c) and who.summary_marker in (c.get("body") or "")]

    found = mine()
    if found:
        c = found[0]
        if c.get("body") == body:
            return "unchanged"
        gh.patch(f"issues/comments/{c['id']}", {"body": body})
        return "updated"

    def recheck():
        try:
            return next(iter(mine()), None)
        except ApiError:
            return None

    gh.post(f"issues/{number}/comments", {"body": body}, recheck=recheck)
    return "created"


# --- the upgrade graphs of the changed operators, at the end of the summary -------------------

MAX_GRAPHS = 24000  # characters: the graphs never crowd the findings out of a comment


def graphs_markdown(root: str, report: dict, log=print) -> str:
    """The "Upgrade graph" section (``graph_view.pr_markdown``) for the operators of the
    checked bundles; "" when there is none, when it is too long, or when drawing it failed
    (logged: the findings are what must get through)."""
    from ..graph_view import pr_markdown

    try:
        text = pr_markdown(root, report.get("bundles") or [])
    except Exception as e:  # a bug in the drawing must not cost the summary
        log(f"olm-check: the upgrade graph could not be drawn ({type(e).__name__}: {e})")
        return ""
    if len(text) > MAX_GRAPHS:
        log(f"olm-check: the upgrade graph section ({len(text)} characters) is too long for the summary; left out")
        return ""
    return text


# --- 5. fallback: workflow commands -------------------------------------------------------------

def workflow_commands(findings: list, out) -> int:
    """``::error``/``::warning``/``::notice`` for the most severe findings, at most 10 each."""
    count = {}
    n = 0
    for f in by_severity(findings):
        level = f.severity
        if count.get(level, 0) >= WORKFLOW_COMMANDS_PER_LEVEL:
            continue
        count[level] = count.get(level, 0) + 1
        out.write(wfcmd.command(f) + "\n")
        n += 1
    return n


def write_report_files(env, report: dict, findings: list, rules: dict) -> dict:
    """The JSON report (always) and SARIF (when asked), relative to the workspace."""
    from ..report import render

    done = {}
    path = env.workspace_path(env.report_file)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    done["report"] = os.path.relpath(path, env.workspace).replace(os.sep, "/")
    if env.sarif_file:
        sp = env.workspace_path(env.sarif_file)
        os.makedirs(os.path.dirname(sp) or ".", exist_ok=True)
        with open(sp, "w", encoding="utf-8") as fh:
            fh.write(render("sarif", report, findings, rules))
        done["sarif"] = os.path.relpath(sp, env.workspace).replace(os.sep, "/")
    return done
