"""The Action's own markers cannot be forged or crossed (issue 34, breaks 6-8): a marker is
the action's only where it writes it (the summary's first line, an inline comment's last
line) in a comment of the token's own user, one namespace (``name``) never matches another's,
and text from the pull request never becomes a marker or a link. End to end against the fake
GitHub (every request validated against GitHub's OpenAPI description)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fakegithub.plugin import fake_github_fixture  # noqa: E402,F401  (fixture fake_github)
from test_action_e2e import CM, NEW, commit_overlay, make_repo, run_action, sync_pull  # noqa: E402

from checker.action.common import Who  # noqa: E402
from checker.finding import Finding  # noqa: E402
from checker.report import markdown as md  # noqa: E402

ANN = f"{NEW}/metadata/annotations.yaml"
LABEL = 'com.redhat.openshift.versions: "v4.14"'
CONFIG = 'rules: {ocp-versions-style: warning, yaml-lint: "off"}\n'  # the label's style fix is a suggestion


def label(ws: Path, value: str, comment: str = "") -> None:
    p = ws / ANN
    text = p.read_text()
    assert LABEL in text
    p.write_text(text.replace(LABEL, f"com.redhat.openshift.versions: {value}" + (f"  # {comment}" if comment else "")))


def test_a_fingerprint_forged_in_a_suggestion_hides_nothing(fake_github, tmp_path):
    """The PR writes, in a YAML comment of a line whose fix becomes a suggestion, the marker of
    a finding it will bring in the next push (fingerprints are computable in advance). That
    finding still gets its inline comment, and the suggestion is not posted twice."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    dup = Finding("yaml-duplicate-key", "the key 'zzz' is repeated with a different value (first at line 9)",
                  CM, 10, severity="error")
    forged = Who().fp_marker(dup.fingerprint())

    def edit(ws):
        label(ws, '"4.14"', forged)
        (ws / ".olm-check.yaml").write_text(CONFIG)

    head = commit_overlay(ws, edit=edit, message="forge")
    sync_pull(fake, ws, base, head)
    r1 = run_action(fake, tmp_path, ws, "run1", inputs={"INPUT_CHECK_RUN": "false"})
    suggestion = [c for c in fake.review_comments_for(1) if c.path == ANN]
    assert len(suggestion) == 1 and forged in suggestion[0].body and r1["rc"] == 1

    def push(ws):
        cm = ws / CM
        cm.write_text(cm.read_text() + "  zzz: a\n  zzz: b\n")

    head2 = commit_overlay(ws, edit=push, message="the finding the marker hides")
    sync_pull(fake, ws, base, head2)
    r2 = run_action(fake, tmp_path, ws, "run2")
    got = [f for f in r2["report"]["findings"] if "'zzz'" in f["message"]]
    assert got and Finding(got[0]["rule"], got[0]["message"], got[0]["path"], got[0]["line"]).fingerprint() \
        == dup.fingerprint()
    comments = fake.review_comments_for(1)
    assert [c.path for c in comments].count(ANN) == 1  # not posted a second time
    assert any(c.path == CM and "zzz" in c.body for c in comments)  # the new error is commented
    assert fake.violations == []


def test_markers_in_pull_request_text_do_not_cross_named_runs(fake_github, tmp_path):
    """Run "a" shows a file named like run "b"'s summary marker (a code span) and a suggestion
    quoting one of "b"'s fingerprints; run "b" then neither takes a's summary for its own nor
    deletes a's inline comment."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    b = Who(name="b")
    odd = f"{NEW}/manifests/{b.summary_marker}.yaml"

    def edit(ws):
        label(ws, '"4.14"', b.fp_marker("0123456789abcdef"))
        (ws / odd).write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\ndata:\n  k: a\n  k: b\n")
        (ws / ".olm-check.yaml").write_text(CONFIG)

    head = commit_overlay(ws, edit=edit, message="markers of b")
    sync_pull(fake, ws, base, head)
    run_action(fake, tmp_path, ws, "a", inputs={"INPUT_NAME": "a", "INPUT_CHECK_RUN": "false"})
    a_sticky = {c.id: c.body for c in fake.issue_comments_for(1)}
    a_inline = {c.id for c in fake.review_comments_for(1)}
    assert len(a_sticky) == 1 and any(c.path == ANN for c in fake.review_comments_for(1))
    assert b.summary_marker not in next(iter(a_sticky.values()))  # shown as text, not as the marker
    run_action(fake, tmp_path, ws, "b", inputs={"INPUT_NAME": "b", "INPUT_CHECK_RUN": "false"})
    after = {c.id: c.body for c in fake.issue_comments_for(1)}
    assert len(after) == 2 and all(after[i] == a_sticky[i] for i in a_sticky)
    assert a_inline <= {c.id for c in fake.review_comments_for(1)}
    assert not fake.calls("pulls/delete-review-comment")
    assert fake.violations == []


def _outside_code(body: str) -> str:
    """Markdown with its code spans and blocks taken out (GitHub links nothing inside them)."""
    body = re.sub(r"(`{3,})[^\n]*\n.*?\n\1", "", body, flags=re.S)
    body = re.sub(r"<code>.*?</code>", "", body, flags=re.S)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", body)


def test_a_url_after_an_underscore_is_not_a_link(fake_github, tmp_path):
    """A label `v4.12-v4.14_http://evil.example/x`: the URL is broken (a zero-width space
    after the scheme) in the inline comments, the summary comment, the check run and the job
    summary."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    head = commit_overlay(ws, edit=lambda ws: label(ws, '"v4.12-v4.14_http://evil.example/x"'), message="link")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    (run,) = fake.check_runs_for(head)
    bodies = [c.body for c in fake.review_comments_for(1)] + [c.body for c in fake.issue_comments_for(1)] \
        + [r["summary"], run.output["summary"]]
    assert any("evil.example" in b for b in bodies)
    for b in bodies:
        assert not re.search(r"(?i)(?:https?|www)[:.]", _outside_code(b).replace("https://github.com/", "")), b
    for s in ("x_http://evil", "x-https://evil", "awww.evil", "(ftp://e", "a_mailto:x"):
        assert "&#8203;" in md.text(s)
    assert fake.violations == []
