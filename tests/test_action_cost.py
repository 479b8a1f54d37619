"""A pull request costs a bounded report and bounded writes (issue 34, breaks 9 and 10): a cap
on findings per rule and file, a cap on annotations per check run, suggestions that fit
GitHub's comment limit or are not posted as suggestions. End to end against the fake GitHub
(every request validated against GitHub's OpenAPI description)."""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fakegithub.plugin import fake_github_fixture  # noqa: E402,F401  (fixture fake_github)
from test_action_e2e import CM, NEW, commit_overlay, make_repo, run_action, sync_pull  # noqa: E402
from test_action_markers import ANN, CONFIG, label  # noqa: E402

from checker.action.common import MAX_ANNOTATIONS, MAX_COMMENT, Who  # noqa: E402
from checker.engine import MAX_PER_RULE_AND_FILE  # noqa: E402


def repeated(n: int, name: str = "q") -> str:
    return (f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n"
            + "".join(f"  k{i}: a\n  k{i}: a\n" for i in range(n)))


def test_a_suggestion_too_long_for_a_comment_is_not_cut(fake_github, tmp_path):
    """A 70,000-character line with a machine fix: the comment holds no cut suggestion (its
    fence is whole or absent), says why, keeps its fingerprint on its last line, and a
    re-run posts no duplicate."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)

    def edit(ws):
        label(ws, '"4.14"', "x" * 70000)
        (ws / ".olm-check.yaml").write_text(CONFIG)

    head = commit_overlay(ws, edit=edit, message="long line")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run1", inputs={"INPUT_CHECK_RUN": "false"})
    (c,) = [c for c in fake.review_comments_for(1) if c.path == ANN]
    assert len(c.body) <= MAX_COMMENT and "```suggestion" not in c.body and "too long for a GitHub suggestion" in c.body
    assert Who().fingerprint_of(c.body) is not None and r["rc"] == 1
    run_action(fake, tmp_path, ws, "run2", inputs={"INPUT_CHECK_RUN": "false"})
    assert [x.id for x in fake.review_comments_for(1) if x.path == ANN] == [c.id]
    assert fake.violations == []


def test_findings_per_rule_and_file_are_capped(fake_github, tmp_path):
    """6,000 repeated keys in one ConfigMap: 100 findings and one that says the rest are not
    listed (as severe as they are); the check run takes a handful of writes, not 120."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    head = commit_overlay(ws, edit=lambda ws: (ws / CM).write_text(repeated(6000)), message="6,000 keys")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_REVIEW_COMMENTS": "false"})
    on_cm = [f for f in r["report"]["findings"] if f["path"] == CM and f["rule"] == "yaml-duplicate-key"]
    assert len(on_cm) == MAX_PER_RULE_AND_FILE + 1
    more = [f for f in on_cm if "not listed" in f["message"]]
    assert len(more) == 1 and "5900 more" in more[0]["detail"] and more[0]["severity"] == "warning"
    assert len(fake.calls("checks/create")) + len(fake.calls("checks/update")) <= 4
    assert fake.violations == []


def test_annotations_per_check_run_are_capped(fake_github, tmp_path):
    """12 ConfigMaps of 150 repeated keys (1,212 findings): the check run annotates the first
    1,000 and its summary says how many were left out."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)

    def edit(ws):
        for i in range(12):
            (ws / NEW / "manifests" / f"many{i:02}.configmap.yaml").write_text(repeated(150, f"m{i}"))

    head = commit_overlay(ws, edit=edit, message="many files")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_REVIEW_COMMENTS": "false"})
    total = len(r["report"]["findings"])
    assert total > MAX_ANNOTATIONS
    (run,) = fake.check_runs_for(head)
    assert len(run.annotations) == MAX_ANNOTATIONS
    assert f"**{total - MAX_ANNOTATIONS} finding(s) are not annotated on their lines**" in run.output["summary"]
    assert fake.violations == []
