"""The Action's publishers behind one interface (``checker.action.publish``), against the local
fake GitHub: each publisher stands alone, so GitHub failing one of them loses only that one,
and a check run that cannot be made is made up for by workflow-command annotations. And the
run report's direction: the core's data types know nothing of the report."""
from __future__ import annotations

import io

from fakegithub.plugin import fake_github_fixture  # noqa: F401  (fixture fake_github)
from test_architecture import _graph

from checker.action.checkrun import CheckRun, LeftoverAnnotations
from checker.action.client import GitHub
from checker.action.common import Who
from checker.action.env import PullRequest
from checker.action.publish import PublishContext, publish_all
from checker.action.review import Review, inline_candidates
from checker.action.sticky import SummaryComment
from checker.action.workflow_commands import WorkflowCommands
from checker.finding import Finding
from checker.report.run import BundleEntry, RunReport


def _setup(fake):
    pr = fake.add_pull(1)
    pr.add_file("op/1.0.0/manifests/a.yaml", base="x: 1\n", head="x: 1\ny: 2\n")
    gh = GitHub(fake.url, "owner/repo", fake.token, base_delay=0.001, sleep=lambda s: None, write_spacing=0)
    findings = [Finding("r-one", "the key y is wrong", "op/1.0.0/manifests/a.yaml", 2, severity="error"),
                Finding("r-two", "x could be better", "op/1.0.0/manifests/a.yaml", 1, severity="warning")]
    run = RunReport.build([BundleEntry("op/1.0.0", "op", "op.v1.0.0", "registry+v1", "v4.14", ("4.14",), ("4.14",))],
                          findings)
    logged: list = []
    out = io.StringIO()
    right = {"op/1.0.0/manifests/a.yaml": {1, 2}}
    ctx = PublishContext(gh=gh, who=Who(), log=logged.append, out=out, head_sha=pr.head_sha,
                         pull=PullRequest(1, pr.head_sha, pr.base_sha), right=right, gate=findings,
                         inline=inline_candidates(findings, right)[0])
    return run, ctx, logged, out


def test_a_check_run_github_keeps_failing_loses_only_the_check_run(fake_github):
    fake = fake_github
    run, ctx, logged, out = _setup(fake)
    fake.fail("POST", r".*/check-runs", 502, times=None)
    done = publish_all([CheckRun(), Review(), SummaryComment(), LeftoverAnnotations()], run, ctx)
    # the review and the summary comment were still made
    assert len(fake.review_comments_for(1)) == 2
    (comment,) = fake.issue_comments_for(1)
    assert "the key y is wrong" in comment.body
    # the check run's failure is said, and its findings need the fallback
    assert done.fallback is True
    assert any(n.startswith("The check run could not be posted (502") for n in done.notes), done.notes
    assert any(line.startswith("olm-check: check run failed: POST") for line in logged), logged
    assert "olm-check: summary comment: created" in logged
    # which shows them as annotations of the step
    notes = WorkflowCommands().publish(run, ctx).notes
    assert out.getvalue().splitlines()[0].startswith("::error file=op/1.0.0/manifests/a.yaml,line=2,")
    assert notes and "No check run: the 2 most severe finding(s)" in notes[0]
    assert fake.violations == []


def test_a_refused_review_does_not_stop_the_summary_comment_nor_ask_for_the_fallback(fake_github):
    fake = fake_github
    run, ctx, logged, out = _setup(fake)
    fake.fail("POST", r".*/pulls/1/reviews", 500, times=None)
    done = publish_all([CheckRun(), Review(), SummaryComment(), LeftoverAnnotations()], run, ctx)
    assert len(fake.issue_comments_for(1)) == 1
    assert fake.review_comments_for(1) == []
    assert done.fallback is False  # the check run was made: no workflow commands needed
    assert any(n.startswith("The review could not be posted (500") for n in done.notes), done.notes
    # the findings meant for inline comments went onto the check run after all
    (check,) = fake.check_runs.values()
    assert len(check.annotations) == 2
    assert fake.violations == []


def test_the_core_data_types_import_nothing_of_the_report():
    graph = _graph()
    for core in ("checker.finding", "checker.model", "checker.engine"):
        assert not {m for m in graph[core] if m.startswith(("checker.report", "checker.action"))}, core
