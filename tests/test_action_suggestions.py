"""Fixes inline: a finding with a machine fix becomes a review comment with a ```suggestion
block on the fix's line, and a finding shown inline is not an annotation of the check run too
(Files changed shows each finding once). The Action against the fake GitHub."""
from __future__ import annotations

import re

from fakegithub.plugin import fake_github_fixture  # noqa: F401  (fixture fake_github)
from test_action_e2e import CSV, commit_overlay, make_repo, run_action, sync_pull


def _unquoted_feature(ws):
    p = ws / CSV
    p.write_text(p.read_text().replace('features.operators.openshift.io/disconnected: "true"',
                                       "features.operators.openshift.io/disconnected: true", 1))


def test_a_fix_is_a_suggestion_and_not_also_an_annotation(fake_github, tmp_path):
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    head = commit_overlay(ws, edit=_unquoted_feature, message="unquoted")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    fixed = [f for f in r["report"]["findings"] if f["fix"] is not None]
    assert any(f["rule"] == "feature-annotations" for f in fixed), [f["rule"] for f in r["report"]["findings"]]
    comments = fake.review_comments_for(1)
    for f in fixed:  # every finding with a machine fix: a suggestion on the fix's line
        c = next((c for c in comments if c.path == f["path"] and c.line == f["fix"]["line"]), None)
        assert c is not None, f
        block = re.search(r"```suggestion\n(.*?)\n```", c.body, re.S)
        assert block and block.group(1) == f["fix"]["replacement"], c.body
    one = next(c for c in comments if "feature-annotations" in c.body)
    assert 'features.operators.openshift.io/disconnected: "true"' in one.body
    # inline or annotated, never both
    ann = fake.check_runs_for(head, "olm-check")[0].annotations
    assert not {(a.path, a.start_line) for a in ann} & {(c.path, c.line) for c in comments}
    assert len(ann) + len(comments) == len(r["report"]["findings"])
    assert fake.violations == []


def test_inline_findings_the_review_could_not_post_are_annotated_after_all(fake_github, tmp_path):
    """The review and the single comments are refused: nothing is inline, so every finding is
    an annotation (the ones meant for inline comments appended after the review failed)."""
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.fail("POST", r".*/pulls/1/reviews", 500, times=None)
    r = run_action(fake, tmp_path, ws, "run")
    assert not fake.review_comments_for(1)
    assert len(fake.check_runs_for(head, "olm-check")[0].annotations) == len(r["report"]["findings"])
    assert "review could not be posted (500" in r["summary"]
    assert fake.violations == []
