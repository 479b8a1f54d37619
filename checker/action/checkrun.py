"""The check run ``olm-check`` (``olm-check (NAME)``) on the head commit: every finding an
annotation, 50 per request; created ``completed`` so it is never left ``in_progress``."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ..finding import Finding
from ..report import markdown as md
from ..report.links import help_uri
from ..report.run import RunReport
from .client import ApiError, GitHub
from .common import ANNOTATIONS_PER_REQUEST, LEVEL, MAX_ANNOTATIONS, MAX_OUTPUT, Who, by_severity, conclusion, fit, fitted_summary, now
from .publish import PublishContext, PublishResult


def _releases(f: Finding, not_ga: Sequence[str] = ()) -> str:
    return md.releases(f.ocp_versions, not_ga)


def annotation(f: Finding, not_ga: Sequence[str] = ()) -> dict[str, Any]:
    explained = "".join(f"\n\n{x}" for x in (f.detail, help_uri(f.rule)) if x)
    a: dict[str, Any] = {
        "path": f.path, "start_line": max(1, f.line), "end_line": max(1, f.line),
        "annotation_level": LEVEL.get(f.severity or "", "failure"),
        "message": fit(f.message + (f" [OCP {_releases(f, not_ga)}]" if f.ocp_versions else "") + explained, 64000, " …"),
        "title": f"olm-check {f.rule}"[:255]}
    if f.column and f.column > 1:
        a["start_column"] = a["end_column"] = f.column
    if f.fix is not None:
        a["raw_details"] = fit(f"Fix (line {f.fix.line}): {f.fix.description}\n{f.fix.replacement}", 64000, " …")
    return a


def find_check_run(gh: GitHub, who: Who, head_sha: str) -> Optional[dict[str, Any]]:
    """This run's check run, if a create that failed did happen (its ``external_id``)."""
    try:
        data = gh.get(f"commits/{head_sha}/check-runs", params={"check_name": who.check_name, "filter": "all",
                                                               "per_page": 100})
    except ApiError:
        return None
    runs = data.get("check_runs") if isinstance(data, dict) else None
    return next((r for r in runs or [] if isinstance(r, dict) and r.get("external_id") == who.nonce), None)


def check_run(gh: GitHub, head_sha: str, run: RunReport, details_url: Optional[str], who: Who,
              gate: Sequence[Finding], inline: Sequence[Finding] = (), blob: str = "") -> dict[str, Any]:
    """The check run with every finding as an annotation (but those of ``inline``, posted as
    review comments). It is created ``completed`` (the conclusion on ``gate``, the findings
    ``run.fail_on`` applies to, is known before anything is posted), with the first 50
    annotations; the rest are appended by updates. So it is never left ``in_progress`` (a
    required check would hang): when an update fails the run keeps what it has, and says so in
    its summary."""
    findings = run.findings
    skip = {id(f) for f in inline}  # posted inline (review comments): not annotated twice
    s = run.summary
    title = (f"{s.errors} error(s), {s.warnings} warning(s), {s.info} info in {s.bundles} bundle(s)"
             if findings else f"No findings in {s.bundles} bundle(s)")
    ordered = [f for f in by_severity(findings) if id(f) not in skip]
    left_out = max(0, len(ordered) - MAX_ANNOTATIONS)
    ordered = ordered[:MAX_ANNOTATIONS]  # most severe first: the rest are in the summary and the report
    summary = fitted_summary(run, MAX_OUTPUT, blob=blob)
    if left_out:
        summary = fit(f"**{left_out} finding(s) are not annotated on their lines**: olm-check annotates at most "
                      f"{MAX_ANNOTATIONS} per check run (the most severe first); every finding is in the JSON report.\n\n"
                      + summary, MAX_OUTPUT)
    ann = [annotation(f, run.ocp_not_ga) for f in ordered]
    batches = [ann[i:i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(ann), ANNOTATIONS_PER_REQUEST)] or [[]]
    when = now()
    body: dict[str, Any] = {
        "name": who.check_name, "head_sha": head_sha, "status": "completed",
        "conclusion": conclusion(gate, run.fail_on, bool(findings)), "started_at": when, "completed_at": when,
        "external_id": who.nonce,
        "output": {"title": title, "summary": summary, "annotations": batches[0]}}
    if details_url:
        body["details_url"] = details_url
    made = gh.post("check-runs", body, recheck=lambda: find_check_run(gh, who, head_sha))
    run_id = made["id"]
    app = made.get("app") if isinstance(made.get("app"), dict) else {}
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
    # (the "_" keys are for the Action, not for the log line)
    return {"id": run_id, "annotations": sent, "missing": len(ann) - sent, "left_out": left_out,
            "_title": title, "_summary": summary,
            "_unsent": ordered[sent:], "_error": f"{failed.status} {failed.message}" if failed is not None else ""}


def add_annotations(gh: GitHub, made: dict[str, Any], findings: Sequence[Finding], not_ga: Sequence[str] = ()) -> int:
    """Annotate ``findings`` on the check run ``made`` after all (those meant for inline
    comments that did not get there); returns how many went through."""
    ann = [annotation(f, not_ga) for f in by_severity(findings)]
    sent = 0
    for i in range(0, len(ann), ANNOTATIONS_PER_REQUEST):
        batch = ann[i:i + ANNOTATIONS_PER_REQUEST]
        try:
            gh.patch(f"check-runs/{made['id']}", {"output": {"title": made["_title"], "summary": made["_summary"],
                                                             "annotations": batch}})
        except ApiError:
            break
        sent += len(batch)
    return sent


def _log_line(made: dict[str, Any]) -> str:
    return str({k: v for k, v in made.items() if not k.startswith("_")})


class CheckRun:
    """The check run; when it cannot be made, workflow commands annotate the step instead."""

    name = "check run"
    fallback = True

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult:
        if ctx.gh is None:
            return PublishResult(fallback=True)
        made = check_run(ctx.gh, ctx.head_sha, run, ctx.details_url, ctx.who, ctx.gate, ctx.inline, ctx.blob)
        ctx.check_run = made
        return PublishResult(log=_log_line(made))


class LeftoverAnnotations:
    """After the review: the findings meant for inline comments that did not get there are
    annotated on the check run after all; the notes name every annotation that could not be
    added to the check run."""

    name = "check run annotations"
    fallback = False

    def publish(self, run: RunReport, ctx: PublishContext) -> PublishResult:
        made = ctx.check_run
        if ctx.gh is None or not isinstance(made, dict):
            return PublishResult()
        unsent: list[Finding] = list(made.get("_unsent") or [])
        back = [f for f in ctx.inline if f.fingerprint() not in ctx.placed]
        if back:
            n = add_annotations(ctx.gh, made, back, run.ocp_not_ga)
            unsent += back[n:]
        if not unsent:
            return PublishResult()
        shown = unsent[:20]
        listed = "".join(f"\n- `{md.text(f.path)}:{f.line}` {f.severity} {f.rule}" for f in shown)
        more = f"\n- … and {len(unsent) - len(shown)} more" if len(unsent) > len(shown) else ""
        why = f" ({made['_error']})" if made.get("_error") else ""
        return PublishResult(notes=[
            f"⚠️ The check run could not be updated{why}: {len(unsent)} annotation(s) did not get through, "
            f"so these findings are not marked on their lines (they are all in this summary and the JSON "
            f"report):{listed}{more}"])

