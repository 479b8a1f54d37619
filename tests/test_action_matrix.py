"""Several runs of the Action in one workflow (a matrix over two paths, no `name` input): each
path owns its check run, summary comment and inline comments; re-runs of one never delete or
rewrite the other's. The fake GitHub, real git repositories."""
from __future__ import annotations

import shutil

from fakegithub.plugin import fake_github_fixture  # noqa: F401  (fixture fake_github)
from test_action_e2e import FIX, commit_overlay, git, run_action, sync_pull

from checker.action import run_name

A, B = "operators/example-operator", "operators/other-operator"


def _pr_in_two_operators(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    shutil.copytree(ws / A, ws / B)  # a second operator, same bundle
    git(ws, "init", "-q", "-b", "main")
    base = commit_overlay(ws, message="base")
    git(ws, "checkout", "-q", "-b", "feature")

    def edit(ws):
        shutil.copytree(FIX / "pr-new-bundle" / A / "1.1.0", ws / A / "1.1.0")
        shutil.copytree(FIX / "pr-new-bundle" / A / "1.1.0", ws / B / "1.1.0")

    head = commit_overlay(ws, edit=edit, message="both")
    return ws, base, head


def _state(fake, head):
    return ({c.id: c.body for c in fake.review_comments_for(1)},
            {c.id: c.body for c in fake.issue_comments_for(1)},
            sorted(r.name for r in fake.check_runs_for(head)))


def test_two_matrix_runs_keep_each_others_comments_summary_and_check_run(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = _pr_in_two_operators(tmp_path)
    sync_pull(fake, ws, base, head)
    ra = run_action(fake, tmp_path, ws, "a1", inputs={"INPUT_PATH": A})
    rb = run_action(fake, tmp_path, ws, "b1", inputs={"INPUT_PATH": B})
    assert ra["rc"] == rb["rc"] == 1
    reviews, summaries, runs = _state(fake, head)
    assert runs == [f"olm-check ({A})", f"olm-check ({B})"]
    assert len(summaries) == 2
    bodies = list(summaries.values())
    assert any(f"<!-- olm-check:{A.replace('/', '%2F')}:summary -->" in b for b in bodies)
    assert any(f"<!-- olm-check:{B.replace('/', '%2F')}:summary -->" in b for b in bodies)
    assert {c.path.split("/")[1] for c in fake.review_comments_for(1)} == {"example-operator", "other-operator"}
    # run A again (a re-run, then a new commit that fixes A's findings): B's stay as they are
    b_comments = {i: b for i, b in reviews.items() if "other-operator" in next(
        c.path for c in fake.review_comments_for(1) if c.id == i)}
    b_summary = {i: b for i, b in summaries.items() if b.startswith(f"<!-- olm-check:{B.replace('/', '%2F')}:summary")}
    assert len(b_summary) == 1
    run_action(fake, tmp_path, ws, "a2", inputs={"INPUT_PATH": A})
    git(ws, "rm", "-q", "-r", f"{A}/1.1.0/manifests/settings.configmap.yaml")
    head2 = commit_overlay(ws, message="fix A")
    sync_pull(fake, ws, base, head2)
    run_action(fake, tmp_path, ws, "a3", inputs={"INPUT_PATH": A})
    now_reviews, now_summaries, _ = _state(fake, head2)
    assert {i: now_reviews.get(i) for i in b_comments} == b_comments  # B's inline comments: untouched
    assert {i: now_summaries.get(i) for i in b_summary} == b_summary  # B's summary: not rewritten
    assert len(now_summaries) == 2
    deleted = [q.path for q in fake.calls("pulls/delete-review-comment")]
    assert deleted and all(int(p.rsplit("/", 1)[1]) not in b_comments for p in deleted)
    assert fake.violations == []


def test_run_names():
    assert run_name(".") == run_name("") == run_name("./") == ""
    assert run_name("./operators/foo/") == "operators/foo"
