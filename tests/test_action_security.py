"""The action under hostile pull requests, other tokens, refusals and faults (issue 21), end
to end against the fake GitHub on 127.0.0.1 (every request validated against GitHub's
published OpenAPI description), with a model of the runner's workflow-command parsing."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fakegithub.plugin import fake_github_fixture  # noqa: E402,F401  (fixture fake_github)
from fakegithub.server import SECONDARY_RATE_LIMIT_MESSAGE  # noqa: E402
from test_action_e2e import (CM, CSV, NEW, commit_overlay, git, make_repo, run_action,  # noqa: E402
                             sync_pull)

from checker.action import reporters as rp  # noqa: E402
from checker.action.client import GitHub  # noqa: E402
from checker.finding import Finding, Fix  # noqa: E402
from checker.report.github import esc_data, inert, stop_commands  # noqa: E402

MANIFESTS = f"{NEW}/manifests"


# --- a model of the runner's command processing ------------------------------------------

#: commands the runner knows (actions/runner src/Runner.Worker/*CommandExtension*)
RUNNER_COMMANDS = {"add-mask", "add-matcher", "remove-matcher", "debug", "notice", "warning", "error",
                   "group", "endgroup", "echo", "save-state", "set-output", "set-env", "add-path",
                   "stop-commands"}


def _unescape(s: str) -> str:
    return s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


class Runner:
    """What actions/runner does with a step's output (src/Runner.Common/ActionCommand.cs,
    src/Runner.Worker/ActionCommandManager.cs): lines split at CR, LF and CRLF; a line that
    starts with ``::`` after leading whitespace (v2) or that holds ``##[`` anywhere (v1) is
    a command when its name is registered; ``stop-commands`` registers its data as the
    resume token and ignores every command but that one (case-insensitive) until it comes."""

    def __init__(self):
        self.registered = {c.lower() for c in RUNNER_COMMANDS}
        self.stop_token = None
        self.commands = []  # (name, properties, data) acted on

    def parse(self, line: str):
        s = line.lstrip()
        if s.startswith("::"):
            end = s.find("::", 2)
            if end >= 0:
                info, data = s[2:end], s[end + 2:]
                name, _, props = info.partition(" ")
                if name.lower() in self.registered:
                    pairs = dict(p.split("=", 1) for p in props.split(",") if "=" in p)
                    return name, {k: _unescape(v) for k, v in pairs.items()}, _unescape(data)
        i = line.find("##[")
        if i >= 0:
            rb = line.find("]", i)
            if rb >= 0:
                info = line[i + 3:rb]
                name, _, props = info.partition(" ")
                if name.lower() in self.registered:
                    pairs = dict(p.split("=", 1) for p in props.split(";") if "=" in p)
                    return name, pairs, line[rb + 1:]
        return None

    def feed(self, text: str) -> "Runner":
        for line in re.split(r"\r\n|\r|\n", text):
            cmd = self.parse(line)
            if cmd is None:
                continue
            name = cmd[0].lower()
            if self.stop_token is not None:
                if name == self.stop_token.lower():
                    self.registered.discard(self.stop_token.lower())
                    self.stop_token = None
                    self.commands.append(("resume", {}, name))
                continue
            if name == "stop-commands":
                self.stop_token = cmd[2]
                self.registered.add(cmd[2].lower())
            self.commands.append(cmd)
        return self


def assert_only_own_commands(res, report):
    """stdout and stderr, each alone and in either order: the runner acts only on the
    action's own stop/resume pair and on ::error/::warning/::notice lines that carry a
    finding (file and message exactly as the report has them)."""
    messages = {(f["path"], f["message"]) for f in report["findings"]}
    for text in (res["stdout"], res["stderr"], res["stdout"] + res["stderr"], res["stderr"] + res["stdout"]):
        runner = Runner().feed(text)
        assert runner.stop_token is None  # every window closed
        stops = [c for c in runner.commands if c[0] == "stop-commands"]
        for name, props, data in runner.commands:
            if name == "stop-commands":
                assert data.startswith("olm-check-") and len(data) == len("olm-check-") + 32
            elif name == "resume":
                assert any(data == s[2].lower() for s in stops)
            else:
                assert name in ("error", "warning", "notice"), (name, props, data)
                assert (props.get("file"), data) in messages, (name, props, data)
    assert Runner().feed(res["stderr"]).commands == []


HOSTILE_KEYS = [
    "\r::add-mask::s3cr3t",
    "\r::error file=README.md,line=1::forged by the pull request",
    "\r::stop-commands::pwned",
    "\r::set-output name=errors::0",
    "x ##[set-output name=warnings;]0",
    "##[error]forged the v1 way",
    "\r  ::warning::indented",
]


def test_bundle_text_never_reaches_the_runner_as_a_command(fake_github, tmp_path):
    """Keys, messages and a file name full of workflow commands: printed in the text report
    (inside a stop-commands window), in the log (made inert) and as the fallback annotations
    of a fork PR (escaped data): the runner model acts on none of them."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)

    def edit(ws):
        cm = ws / CM
        cm.write_text(cm.read_text() + "".join(f"  {json.dumps(k)}: a\n  {json.dumps(k)}: b\n" for k in HOSTILE_KEYS))
        (ws / MANIFESTS / "##[add-mask]s3cr3t.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                                                 "  name: y\n  name: z\n")

    head = commit_overlay(ws, edit=edit, message="hostile")
    fake.add_pull(1, head_sha=head, base_sha=base, fork=True)  # fork: the fallback annotations too
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run")
    assert r["rc"] == 1
    report = r["report"]
    # the payloads are in the report and printed in the log ...
    assert any("forged by the pull request" in f["message"] for f in report["findings"])
    assert any("##[add-mask]" in f["path"] for f in report["findings"])
    assert "\r::add-mask::s3cr3t" in r["stdout"] and "##[add-mask]s3cr3t.yaml" in r["stdout"]
    # ... and the runner acts on none of them
    assert_only_own_commands(r, report)
    assert "::stop-commands::olm-check-" in r["stdout"]
    errors = [c for c in Runner().feed(r["stdout"]).commands if c[0] == "error"]
    assert errors and any("forged" in c[2] for c in errors)  # a hostile finding as an escaped annotation
    assert fake.violations == []


def test_the_window_cannot_be_closed_from_inside():
    text = "a\n::olm-check-0123::\n##[olm-check-x]\n::stop-commands::x\n::add-mask::y\n"
    out = stop_commands(text)
    runner = Runner().feed(out)
    assert [c[0] for c in runner.commands] == ["stop-commands", "resume"]
    # a token that occurs in the text is never used
    assert "::tok::" not in stop_commands("tok\n", token="tok").splitlines()[-1:]
    # the log's own escaping
    assert Runner().feed(inert("x\r::add-mask::y\n ::error::z\u2028q ##[warning]w")).commands == []
    assert inert("::x::") == "| ::x::"


def test_own_error_lines_are_escaped(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_PATH": "nowhere\n::add-mask::x,y:z%"})
    assert r["rc"] == 2
    cmds = Runner().feed(r["stdout"] + r["stderr"]).commands
    assert [c[0] for c in cmds] == ["error"]
    assert "nowhere\n::add-mask::x,y:z%" in cmds[0][2]
    assert esc_data("50%\r\n") == "50%25%0D%0A"


# --- 2. workflow_run: the pull request is verified --------------------------------------------

def _workflow_run(fake, tmp_path, name, head_sha, head_repo, number):
    job = tmp_path / f"job-{name}"
    job.mkdir()
    ws = tmp_path / "ws"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ws}", str(job / "pr")], check=True,
                   capture_output=True)
    payload = {"action": "completed", "workflow_run": {
        "id": 99, "head_sha": head_sha, "head_repository": {"full_name": head_repo}, "pull_requests": [],
        "event": "pull_request", "conclusion": "success"}}
    event = fake.push_event(before=fake.pulls[1].base_sha, after=fake.pulls[1].head_sha)
    return run_action(fake, tmp_path, job, name, number=None, event_name="push", payload=event,
                      inputs={"GITHUB_EVENT_NAME": "workflow_run", "INPUT_PATH": "pr",
                              "INPUT_PULL_REQUEST": str(number)},
                      rewrite_event=payload)


def test_workflow_run_with_another_pull_requests_number_writes_nothing(fake_github, tmp_path):
    """The artifact of a fork's run (head F in fork/repo) names PR 1 (someone else's, head H
    in owner/repo): exit 2, no write, no report; the same SHA from another repository too."""
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.add_review_comment(1, CSV, 1, "a comment from the real PR", login="contributor")
    attacker = fake.add_pull(2, fork=True, author="mallory")
    r = _workflow_run(fake, tmp_path, "wrong-number", attacker.head_sha, attacker.head_repo.full_name, 1)
    assert r["rc"] == 2 and "not the one the triggering run checked" in r["stdout"]
    assert [q for q in fake.requests if q.method != "GET"] == []
    assert r["report"] is None and r["summary"] == "" and r["outputs"] == ""
    r = _workflow_run(fake, tmp_path, "same-sha-other-repo", head, "mallory/repo", 1)
    assert r["rc"] == 2 and [q for q in fake.requests if q.method != "GET"] == []
    r = _workflow_run(fake, tmp_path, "right", head, "owner/repo", 1)
    assert r["rc"] == 1 and len(fake.check_runs_for(head, "olm-check")) == 1
    assert fake.violations == []


# --- 3. the configuration from the base branch ------------------------------------------------

def test_config_from_base_ignores_the_pull_requests_own_verdict(fake_github, tmp_path):
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    head = commit_overlay(ws, edit=lambda ws: (ws / ".olm-check.yaml").write_text("fail_on: never\n"),
                          message="make my own verdict")
    sync_pull(fake, ws, base, head)
    # plain pull_request trusts the checked tree (the README says so)
    r = run_action(fake, tmp_path, ws, "plain", inputs={"INPUT_REVIEW_COMMENTS": "false",
                                                        "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 0 and fake.check_runs_for(head)[-1].conclusion == "neutral"
    # pull_request_target: the base's (absent: defaults), through git
    r = run_action(fake, tmp_path, ws, "target", event_name="pull_request_target",
                   inputs={"INPUT_REVIEW_COMMENTS": "false", "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 1 and fake.check_runs_for(head)[-1].conclusion == "failure"
    assert "does not exist at the base commit" in r["summary"] and "(git)" in r["summary"]
    # a shallow checkout: the contents API at the base commit
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{ws}", str(shallow)],
                   check=True, capture_output=True)
    r = run_action(fake, tmp_path, shallow, "api", event_name="pull_request_target",
                   inputs={"INPUT_REVIEW_COMMENTS": "false", "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 1 and "(GitHub API)" in r["summary"]
    assert fake.calls("repos/get-content")[-1].query == {"ref": base}
    fake.add_content(base, ".olm-check.yaml", "fail_on: never\n")  # the maintainers' own choice counts
    r = run_action(fake, tmp_path, shallow, "api2", event_name="pull_request_target",
                   inputs={"INPUT_REVIEW_COMMENTS": "false", "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 0
    # and the plain pull_request can ask for it
    r = run_action(fake, tmp_path, ws, "plain2", inputs={"INPUT_CONFIG_FROM_BASE": "true",
                                                         "INPUT_REVIEW_COMMENTS": "false",
                                                         "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 1
    assert fake.violations == []


# --- 4. tokens that are not GITHUB_TOKEN ------------------------------------------------------

@pytest.mark.parametrize("kind", ["pat", "app"])
def test_other_tokens_rerun_without_duplicates(fake_github, tmp_path, kind):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    if kind == "pat":
        token = "ghp_personalAccessToken000000000000000000"
        fake.add_token(token, login="maintainer", type="User")
    else:
        token = "ghs_appInstallationToken00000000000000000"
        fake.add_token(token, login="olm-check-bot[bot]", type="Bot")
    # a person's comment that carries the markers is never taken for the action's, nor
    # (once the App is known from its check run) another App's
    human = fake.add_issue_comment(1, "<!-- olm-check:summary --> quoted", login="maintainer" if kind == "app"
                                   else "reviewer")
    other = fake.add_issue_comment(1, "<!-- olm-check:summary --> another bot", login="other-bot[bot]", type="Bot")
    for i in range(2):
        r = run_action(fake, tmp_path, ws, f"run{i}", token=token)
        assert r["rc"] == 1
    comments = fake.review_comments_for(1)
    assert len(comments) == 30 and len({c.body for c in comments}) == 30
    assert len(fake.reviews_for(1)) == 1
    stickies = [c for c in fake.issue_comments_for(1) if c.id not in (human.id, other.id)]
    assert len(stickies) == 1 and human.body == "<!-- olm-check:summary --> quoted"
    assert other.body == "<!-- olm-check:summary --> another bot"
    assert stickies[0].user.login == ("maintainer" if kind == "pat" else "olm-check-bot[bot]")
    assert not fake.calls("pulls/delete-review-comment")
    if kind == "pat":
        # the Checks API refuses a personal token: annotations of the step instead, the rest posted
        assert not fake.check_runs
        assert "The check run was refused (403 You must authenticate via a GitHub App.)" in r["summary"]
        assert [l for l in r["stdout"].splitlines() if l.startswith("::error ")]
        assert fake.calls("users/get-authenticated")[-1].status == 200
    else:
        assert len(fake.check_runs_for(head)) == 2
        assert fake.calls("users/get-authenticated")[-1].status == 403
    assert fake.violations == []


# --- 5. a 403 on one resource stops only that one --------------------------------------------

def test_without_checks_write_the_review_and_summary_are_still_posted(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.fail("POST", r".*/check-runs", "not-accessible", times=None)
    r = run_action(fake, tmp_path, ws, "run")
    assert r["rc"] == 1
    assert not fake.check_runs
    assert len(fake.review_comments_for(1)) == 30 and len(fake.issue_comments_for(1)) == 1
    assert "`checks: write`" in r["summary"]
    assert [l for l in r["stdout"].splitlines() if l.startswith("::error ")]
    assert fake.violations == []


# --- 6. never in_progress, never twice ----------------------------------------------------------

def test_a_failing_update_leaves_no_check_run_in_progress(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.fail("PATCH", r".*/check-runs/\d+", 500, times=None)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_REVIEW_COMMENTS": "false"})
    assert r["rc"] == 1
    runs = fake.check_runs_for(head)
    assert len(runs) == 1 and runs[0].status == "completed" and runs[0].conclusion == "failure"
    assert len(runs[0].annotations) == 50 < len(r["report"]["findings"])
    # honest about it: the job summary and the log say which annotations did not get through
    missing = len(r["report"]["findings"]) - 50
    for where in (r["summary"], r["stderr"]):
        assert f"The check run could not be updated (500" in where and f"{missing} annotation(s) did not get through" in where
    assert r["summary"].count("\n- `operators/example-operator/1.1.0/") == missing
    assert fake.violations == []


def test_a_create_that_happened_despite_a_5xx_is_not_repeated(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.fail("POST", r".*/check-runs", 502, after=True)
    fake.fail("POST", r".*/pulls/1/reviews", "timeout", after=True, delay=0.01)
    fake.fail("POST", r".*/issues/1/comments", 500, after=True)
    r = run_action(fake, tmp_path, ws, "run")
    assert r["rc"] == 1
    assert len(fake.check_runs_for(head)) == 1 and len(fake.check_runs_for(head)[0].annotations) == 61 - 30
    assert len(fake.reviews_for(1)) == 1 and len(fake.review_comments_for(1)) == 30
    assert len(fake.issue_comments_for(1)) == 1
    for op in ("checks/create", "pulls/create-review", "issues/create-comment"):
        assert len(fake.calls(op)) == 1, op
    assert fake.calls("checks/list-for-ref")  # re-read before a retry
    assert fake.violations == []


def test_secondary_limit_without_retry_after_waits_a_minute_and_writes_are_spaced(fake_github):
    fake = fake_github
    fake.add_pull(1)
    clock = [1000.0]
    slept = []

    def sleep(s):
        slept.append(s)
        clock[0] += s

    gh = GitHub(fake.url, "owner/repo", fake.token, sleep=sleep, clock=lambda: clock[0], base_delay=0.01)
    fake.fail("POST", r".*/issues/1/comments", 403, times=2,
              body={"message": SECONDARY_RATE_LIMIT_MESSAGE, "documentation_url": "https://docs.github.com"})
    gh.post("issues/1/comments", {"body": "one"})
    waits = gh.waits
    assert waits[0] >= 60 and waits[1] >= 2 * waits[0] - 1e-9  # a minute, then longer
    assert len(fake.issue_comments_for(1)) == 1
    slept.clear()
    gh.post("issues/1/comments", {"body": "two"})
    gh.post("issues/1/comments", {"body": "three"})
    assert sum(slept) >= 1.0 and len(slept) >= 2  # a second between mutating requests
    assert fake.violations == []


# --- 7. two named runs keep apart -------------------------------------------------------------

def test_two_named_runs_keep_each_others_comments(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    run_action(fake, tmp_path, ws, "a1", inputs={"INPUT_NAME": "catalog a"})
    run_action(fake, tmp_path, ws, "b1", inputs={"INPUT_NAME": "b"})
    before = {c.id for c in fake.review_comments_for(1)}
    stickies = {c.id: c.body for c in fake.issue_comments_for(1)}
    run_action(fake, tmp_path, ws, "a2", inputs={"INPUT_NAME": "catalog a"})
    assert {c.id for c in fake.review_comments_for(1)} == before and len(before) == 60
    assert {c.id: c.body for c in fake.issue_comments_for(1)} == stickies and len(stickies) == 2
    assert sorted(r.name for r in fake.check_runs_for(head)) == ["olm-check (b)", "olm-check (catalog a)",
                                                                  "olm-check (catalog a)"]
    assert not fake.calls("pulls/delete-review-comment")
    # an unnamed run is a third namespace
    run_action(fake, tmp_path, ws, "plain")
    assert len(fake.issue_comments_for(1)) == 3 and len(fake.review_comments_for(1)) == 90
    assert fake.violations == []


# --- 8. smaller ones ----------------------------------------------------------------------------

def test_inline_comments_on_paths_git_quotes(fake_github, tmp_path):
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    names = [f"{MANIFESTS}/my settings.yaml", f"{MANIFESTS}/café.yaml"]

    def edit(ws):
        for n in names:
            (ws / n).write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\ndata:\n  k: a\n  k: b\n")

    head = commit_overlay(ws, edit=edit, message="odd names")
    assert '"b/' in git(ws, "diff", f"{base}...{head}")  # git quotes the non-ASCII one
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_CHECK_RUN": "false", "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 1
    on = {c.path for c in fake.review_comments_for(1)}
    assert set(names) <= on
    assert fake.violations == []


def test_a_delete_fix_is_an_empty_suggestion(fake_github):
    fake = fake_github
    pr = fake.add_pull(1)
    pr.add_file("a.yaml", base="x: 1\n", head="x: 1\nignored: 2\n")
    gh = GitHub(fake.url, "owner/repo", fake.token, sleep=lambda s: None, write_spacing=0)
    f = Finding("r", "the key is ignored", "a.yaml", 2, severity="error", fix=Fix(2, "", "remove it"))
    rp.review(gh, 1, pr.head_sha, [f], {"a.yaml": {1, 2}}, log=lambda m: None)
    (c,) = fake.review_comments_for(1)
    assert "```suggestion\n```" in c.body and "```suggestion\n\n```" not in c.body
    assert fake.violations == []


def test_job_summary_budget_is_bytes():
    findings = [Finding("r", "設定" * 200, f"f{i}.yaml", 1, severity="warning") for i in range(2000)]
    report = {"summary": {"bundles": 1, "errors": 0, "warnings": len(findings), "info": 0}, "bundles": [],
              "findings": [f.to_json() if hasattr(f, "to_json") else {} for f in findings]}
    text = rp.summary_markdown(report, findings, rp.MAX_STEP_SUMMARY - 20000, measure=rp.utf8_len)
    assert rp.utf8_len(text) <= rp.MAX_STEP_SUMMARY - 20000
    assert len(text) < rp.utf8_len(text)  # CJK: more bytes than characters
    cut = rp.fit("é" * 100, 51, note="…", measure=rp.utf8_len)
    assert rp.utf8_len(cut) <= 51 and cut.endswith("…")


def test_outdated_own_comments_are_posted_again(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    run_action(fake, tmp_path, ws, "run1", inputs={"INPUT_CHECK_RUN": "false", "INPUT_SUMMARY_COMMENT": "false"})
    first = fake.review_comments_for(1)
    old = next(c for c in first if c.path == CSV)
    fake.outdate(old)
    run_action(fake, tmp_path, ws, "run2", inputs={"INPUT_CHECK_RUN": "false", "INPUT_SUMMARY_COMMENT": "false"})
    now = fake.review_comments_for(1)
    assert old.id not in {c.id for c in now}  # the outdated one is gone ...
    again = [c for c in now if c.path == CSV and c.line == old.line]
    assert len(again) == 1 and again[0].body == old.body  # ... and the finding is on its line again
    assert len(now) == 30
    assert fake.violations == []
