"""The review: inline comments on the RIGHT-side diff lines a pull request changes (errors and
warnings, most severe first, at most ``MAX_INLINE``), each with a hidden fingerprint, so a
re-run adds no duplicate and deletes its own stale or outdated comments nobody answered. A
review GitHub refuses (422: a line outside the diff) falls back to comments one by one, then
to file-level comments."""
from __future__ import annotations

import re
from typing import Any, Callable, Collection, Mapping, Optional, Sequence

from ..finding import SEVERITY_RANK, Finding
from ..report import markdown as md
from ..report.run import RunReport
from .client import ApiError, GitHub
from .common import MAX_COMMENT, MAX_INLINE, Who, by_severity, fit
from .publish import PublishContext, PublishResult


def place(f: Finding, right: Mapping[str, Collection[int]]) -> Optional[int]:
    """The RIGHT-side line an inline comment of ``f`` goes on: the line of its machine fix
    when the diff shows it (so the fix is a suggestion to accept there), else its own line;
    None when neither is on the diff."""
    lines = right.get(f.path, ())
    if f.fix is not None and f.fix.line in lines:
        return f.fix.line
    return f.line if f.line in lines else None


def comment_body(f: Finding, who: Optional[Who] = None, not_ga: Sequence[str] = (), line: Optional[int] = None) -> str:
    """An inline comment: the message, the detail (why, and the fix), the OpenShift releases,
    the rule's page, the machine fix as a suggestion (when the comment is on the fix's line:
    ``line``, by default the finding's)."""
    who = who or Who()
    line = f.line if line is None else line
    icon = md.ICON.get(f.severity or "", "")
    lines = [f"{icon} **{f.severity}** {md.rule_link(f.rule)}: {md.text(f.message)}"]
    if f.detail:
        lines.append(f"\n{md.text(f.detail)}")
    if f.ocp_versions:
        lines.append(f"\nOpenShift releases: {md.text(md.releases(f.ocp_versions, not_ga))}")
    marker = "\n\n" + who.fp_marker(f.fingerprint())  # the last line, always (``Who.fingerprint_of``)
    if f.fix is not None and f.fix.line == line:
        repl = f.fix.replacement
        longest = max((len(x) for x in re.findall(r"`{3,}", repl)), default=2)
        fence = "`" * max(3, longest + 1)
        if f.fix.description:
            lines.append(f"\n{md.text(f.fix.description)}")
        # an empty block deletes the line; a block holding an empty line would blank it
        block = f"\n{fence}suggestion\n{repl}\n{fence}" if repl else f"\n{fence}suggestion\n{fence}"
        if len("\n".join(lines + [block])) + len(marker) <= MAX_COMMENT:
            lines.append(block)
        else:  # never a cut suggestion: committing one would write the cut into the file
            lines.append(f"\nThe machine fix of line {f.fix.line} ({len(repl):,} characters) is too long for a "
                         "GitHub suggestion; `olm-check fix` applies it, and the JSON report holds it.")
    return fit("\n".join(lines), MAX_COMMENT - len(marker)) + marker


def inline_candidates(findings: Sequence[Finding], right: Mapping[str, Collection[int]]) -> tuple[list[Finding], list[Finding]]:
    """(inline, elsewhere): findings on RIGHT-side diff lines (``place``) -- errors and
    warnings, and any finding with a machine fix (its suggestion is accepted in one click),
    not the ones unchanged from the base --
    at most MAX_INLINE, one per fingerprint; everything else goes to the summary and the check
    run. Order: most severe first; within a severity, findings with a fix first, then files
    taken in turn (one noisy file cannot take every slot)."""
    inline: list[Finding] = []
    seen: set[str] = set()
    rank: dict[tuple[str, str], int] = {}
    order: list[tuple[Any, ...]] = []
    for f in by_severity(findings):
        if getattr(f, "baseline_state", "") == "unchanged":
            continue  # what the base already had is not re-reported inline (the check run marks it)
        line = place(f, right)
        if line is not None:
            n = rank.get((f.severity or "", f.path), 0)
            rank[(f.severity or "", f.path)] = n + 1
            order.append((-SEVERITY_RANK.get(f.severity or "", 0), f.fix is None, n, f.path, line, f.column, f.rule, id(f), f))
    order.sort(key=lambda t: t[:-1])
    for *_key, f in order:
        if (f.severity not in ("error", "warning") and f.fix is None) or len(inline) >= MAX_INLINE:
            continue
        if f.fingerprint() not in seen:
            seen.add(f.fingerprint())
            inline.append(f)
    placed = {id(f) for f in inline}
    return inline, [f for f in findings if id(f) not in placed]


def outdated(c: Mapping[str, Any]) -> bool:
    """A line comment GitHub no longer places on the diff (its line changed since)."""
    return c.get("subject_type") != "file" and c.get("line") is None


def review(gh: GitHub, number: int, head_sha: str, findings: Sequence[Finding], right: Mapping[str, Collection[int]],
           log: Callable[[str], None] = print, who: Optional[Who] = None, not_ga: Sequence[str] = (),
           placed: Optional[set[str]] = None) -> dict[str, int]:
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

        def find_review() -> Optional[dict[str, Any]]:
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
            _one_by_one(gh, number, head_sha, new, comments, who, result, placed)
    for c in own:
        fp = who.fingerprint_of(c["body"])
        if (fp in current and not outdated(c)) or c["id"] in replied:
            continue
        gh.delete(f"pulls/comments/{c['id']}")
        result["deleted"] += 1
    return result


def _one_by_one(gh: GitHub, number: int, head_sha: str, new: Sequence[Finding], comments: Sequence[dict[str, Any]],
                who: Who, result: dict[str, int], placed: set[str]) -> None:
    """A review GitHub refused (422: a line outside the diff): each comment on its own, on its
    line, else on its file (``subject_type: file``), else counted as unplaced."""
    for f, c in zip(new, comments):
        def find_comment(fp: str = f.fingerprint()) -> Optional[dict[str, Any]]:
            try:
                return next((x for x in gh.paginate(f"pulls/{number}/comments")
                             if who.authored(x) and who.fingerprint_of(x.get("body") or "") == fp
                             and not outdated(x)), None)
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


class Review:
    """The review of the pull request's changed lines; fills ``ctx.placed``."""

    name = "review"
    fallback = False

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult:
        if ctx.gh is None or ctx.pull is None:
            return PublishResult()
        done = review(ctx.gh, ctx.pull.number, ctx.pull.head_sha, run.findings, ctx.right, ctx.log, ctx.who,
                      run.ocp_not_ga, placed=ctx.placed)
        return PublishResult(log=str(done))
