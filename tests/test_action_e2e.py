"""The GitHub Action end to end: entrypoint.py driven as the runner drives it (environment,
event file, a workspace that is a real git repository with a base and a head commit)
against the fake GitHub on 127.0.0.1, which validates every request against GitHub's
published OpenAPI description."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fakegithub import FakeGitHub  # noqa: E402
from fakegithub.plugin import fake_github_fixture  # noqa: E402,F401  (fixture fake_github)
from fakegithub.server import _PullCommit  # noqa: E402

from checker.action.diffmap import right_lines, split_git_diff  # noqa: E402
from conftest import FIXTURES  # noqa: E402

FIX = Path(FIXTURES) / "action"  # materialised: fixtures/files.yaml names some of its files
ENTRY = ROOT / "entrypoint.py"
NEW = "operators/example-operator/1.1.0"
CSV = f"{NEW}/manifests/example-operator.clusterserviceversion.yaml"
CM = f"{NEW}/manifests/settings.configmap.yaml"


def git(ws, *args) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "HOME": str(ws)}
    return subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def commit_overlay(ws: Path, overlay: Path = None, edit=None, message="head") -> str:
    if overlay is not None:
        shutil.copytree(overlay, ws, dirs_exist_ok=True)
    if edit is not None:
        edit(ws)
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", message)
    return git(ws, "rev-parse", "HEAD")


def make_repo(tmp_path: Path, overlay: str = "pr-new-bundle") -> tuple:
    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    git(ws, "init", "-q", "-b", "main")
    base = commit_overlay(ws, message="base")
    git(ws, "checkout", "-q", "-b", "feature")
    head = commit_overlay(ws, FIX / overlay)
    return ws, base, head


def sync_pull(fake: FakeGitHub, ws: Path, base: str, head: str, number: int = 1):
    """The fake's PR gets the same files and patches as git's three-dot diff."""
    pr = fake.pulls.get(number)
    if pr is None:
        pr = fake.add_pull(number, head_sha=head, base_sha=base)
    elif pr.head_sha != head:
        fake.commits.pop(pr.head_sha, None)
        pr.head_sha = head
        fake.commits[head] = _PullCommit(pr)
    pr.files.clear()
    patches = split_git_diff(git(ws, "diff", "-U3", "-M", f"{base}...{head}") + "\n")
    status = {"A": "added", "M": "modified", "D": "removed"}
    fields = git(ws, "diff", "--name-status", "-z", "-M", f"{base}...{head}").strip("\0").split("\0")
    i = 0
    while i < len(fields):  # -z: names as they are (git quotes them otherwise)
        code = fields[i]
        if code.startswith("R"):
            old, new = fields[i + 1], fields[i + 2]
            pr.add_file(new, patches.get(new, ""), status="renamed", previous_filename=old)
            i += 3
        else:
            pr.add_file(fields[i + 1], patches.get(fields[i + 1], "@@ -1 +0,0 @@\n-x"), status=status[code[0]])
            i += 2
    return pr


def run_action(fake: FakeGitHub, tmp_path: Path, ws: Path, name: str, number=1, event_name="pull_request",
               token=None, inputs=None, payload=None, rewrite_event=None):
    run_dir = tmp_path / name
    env = fake.actions_env(run_dir, number, workspace=ws, event_name=event_name, token=token, payload=payload)
    if rewrite_event is not None:  # an event the fake has no schema for (workflow_run)
        Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps(rewrite_event))
    # what the runner sets for the action's inputs (action.yml defaults)
    env.update({"INPUT_PATH": ".", "INPUT_OCP_VERSIONS": "", "INPUT_PROFILE": "", "INPUT_FAIL_ON": "",
                "INPUT_CONFIG": "", "INPUT_REVIEW_COMMENTS": "true", "INPUT_CHECK_RUN": "true",
                "INPUT_SUMMARY_COMMENT": "true", "INPUT_SARIF_FILE": "", "INPUT_REPORT_FILE": "olm-check-report.json",
                "INPUT_PULL_REQUEST": "", "INPUT_NAME": "", "INPUT_CONFIG_FROM_BASE": ""})
    env.update(inputs or {})
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update({"PATH": os.environ["PATH"], "HOME": str(home), "OLM_CHECK_RETRY_DELAY": "0.05",
                "OLM_CHECK_WRITE_SPACING": "0", "OLM_CHECK_SECONDARY_WAIT": "0.05",
                "PYTHONPATH": str(ROOT)})
    # these tests are about the Action's handling of many warnings (the ConfigMap's 60 equal repeated
    # keys): yaml-lint, whose key-duplicates (the pipelines' yamllint) makes them errors, stays off
    # unless the repository has its own configuration (written for this run only, never committed)
    cfg = ws / ".olm-check.yaml"
    own = not cfg.exists()
    if own:
        cfg.write_text('rules: {yaml-lint: "off"}\n')
    try:
        p = subprocess.run([sys.executable, str(ENTRY)], env=env, cwd=str(ws), capture_output=True, timeout=120)
    finally:
        if own:
            cfg.unlink()
    out = {  # bytes as the runner reads them (text=True would turn a CR into a LF)
        "rc": p.returncode, "stdout": p.stdout.decode("utf-8", "replace"),
        "stderr": p.stderr.decode("utf-8", "replace"),
        "summary": Path(env["GITHUB_STEP_SUMMARY"]).read_text(),
        "outputs": Path(env["GITHUB_OUTPUT"]).read_text(),
        "env": env,
    }
    rp = ws / "olm-check-report.json"
    out["report"] = json.loads(rp.read_text()) if rp.exists() else None
    assert "Traceback" not in out["stderr"], out["stderr"]
    return out


def parse_outputs(text: str) -> dict:
    out, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delim = line.split("<<", 1)
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1:j])
            i = j + 1
        elif "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
            i += 1
        else:
            i += 1
    return out


def where(f) -> str:
    return f"{f['path']}:{f['line']}"


def assert_every_finding_in_summary(res):
    """Each finding's place, as the summary shows it: relative to the operator directory when
    the run checked one operator's bundles (``markdown.where``)."""
    for f in res["report"]["findings"]:
        rel = f["path"].split("/", 2)[2] if f["path"].startswith("operators/") else f["path"]
        assert f"`{where(f)}`" in res["summary"] or f"`{rel}:{f['line']}`" in res["summary"], where(f)


def assert_no_token_leak(fake, res):
    token = res["env"]["INPUT_GITHUB_TOKEN"]
    for key in ("stdout", "stderr", "summary", "outputs"):
        assert token not in res[key], key
    assert token not in json.dumps(res["report"])


def assert_graph_block(markdown: str) -> None:
    """The "Upgrade graph" section of the summary: after the findings, one Mermaid block that
    GitHub's Markdown (cmarkgfm) turns into <pre lang="mermaid">, with the new bundle
    highlighted as the head and the edge it adds."""
    import html
    import re

    import cmarkgfm

    first = markdown.find("### Introduced by this pull request")
    assert markdown.index("### Upgrade graph") > (first if first >= 0 else markdown.index("| | rule | where | message |"))
    out = cmarkgfm.github_flavored_markdown_to_html(markdown)
    blocks = [html.unescape(b) for b in re.findall(r'<pre lang="mermaid"><code>(.*?)</code></pre>', out, re.S)]
    assert len(blocks) == 1, out
    b = blocks[0]
    assert b.startswith("flowchart LR\n") and 'subgraph c0["channel stable - head 1.1.0"]' in b
    assert 'c0n0["1.0.0"]' in b and 'c0n1["1.1.0 (new, head)"]:::changed' in b
    assert "c0n0 --> c0n1" in b and "linkStyle 0 stroke:#b58900" in b
    assert "edges of the change: 1.0.0 → 1.1.0 (replaces)" in out


def test_pull_request_end_to_end_rerun_and_fix(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    right = {p: right_lines(t) for p, t in split_git_diff(git(ws, "diff", "-U3", f"{base}...{head}")).items()}

    # --- run 1 -------------------------------------------------------------------------
    r1 = run_action(fake, tmp_path, ws, "run1")
    rep = r1["report"]
    assert r1["rc"] == 1
    assert [b["path"] for b in rep["bundles"]] == [NEW]  # only the bundle the PR adds is checked
    findings = rep["findings"]
    assert {f["bundle"] for f in findings} == {NEW}
    assert any(f["rule"] == "yaml-duplicate-key" and f["severity"] == "error" and f["path"] == CSV for f in findings)
    assert sum(1 for f in findings if f["path"] == CM) == 60
    assert not [f for f in findings if f["rule"] in ("internal-error", "pr-shape")]
    # the check run: on the PR head (not the merge commit), every finding that is not an inline
    # comment annotated (Files changed shows each finding once), 50 per request
    runs = fake.check_runs_for(head, "olm-check")
    assert len(runs) == 1 and runs[0].status == "completed" and runs[0].conclusion == "failure"
    ann = runs[0].annotations
    inline = fake.review_comments_for(1)
    assert len(ann) + len(inline) == len(findings) and len(inline) == 30
    assert not {(a.path, a.start_line) for a in ann} & {(c.path, c.line) for c in inline}
    assert len({(a.path, a.start_line) for a in ann} | {(f["path"], f["line"]) for f in findings}) == \
        len({(f["path"], f["line"]) for f in findings})
    # created completed with the first 50, the rest appended: never in_progress
    assert [r.body["status"] for r in fake.calls("checks/create")] == ["completed"]
    assert len(fake.calls("checks/update")) == -(-len(ann) // 50) - 1
    assert all(len(r.body["output"].get("annotations", [])) <= 50
               for r in fake.calls("checks/create") + fake.calls("checks/update"))
    assert not fake.check_runs_for(fake.pulls[1].merge_commit_sha)
    # one review, inline comments only on RIGHT-side diff lines, at most 30, most severe first
    comments = fake.review_comments_for(1)
    assert len(fake.reviews_for(1)) == 1 and len(comments) == 30
    assert all(c.side == "RIGHT" and c.line in right[c.path] for c in comments)
    assert any(c.path == CSV and "maturity" in c.body for c in comments)
    assert all("<!-- olm-check:fp=" in c.body for c in comments)
    # the sticky summary comment: the verdict first; no per-release table, as every release has
    # the same findings (the bundle table's range says it all)
    sticky = fake.issue_comments_for(1)
    assert len(sticky) == 1 and "<!-- olm-check:summary -->" in sticky[0].body
    assert sticky[0].body.split("\n")[3].startswith("❌ **Blocks:** 1 new error · 61 new, 0 updated, 0 unchanged")
    assert "| OCP release | errors | warnings |" not in sticky[0].body
    # ... and, at its end, the changed operator's upgrade graph as a Mermaid block, rendered as GitHub does
    assert_graph_block(sticky[0].body)
    assert_graph_block(r1["summary"])
    # job summary (every finding), outputs, report
    assert_every_finding_in_summary(r1)
    outs = parse_outputs(r1["outputs"])
    assert outs["errors"] == str(rep["summary"]["errors"]) and outs["warnings"] == str(rep["summary"]["warnings"])
    assert json.loads(outs["bundles"]) == [NEW] and outs["report"] == "olm-check-report.json"
    assert fake.violations == [] and fake.response_violations == []
    assert_no_token_leak(fake, r1)

    # --- run 2: nothing changes ------------------------------------------------------------
    before = {c.id: c.body for c in fake.review_comments_for(1)}
    sticky_body = sticky[0].body
    n_reviews = len(fake.reviews_for(1))
    writes = len(fake.calls("pulls/create-review")) + len(fake.calls("issues/update-comment"))
    r2 = run_action(fake, tmp_path, ws, "run2")
    assert r2["rc"] == 1 and r2["report"]["findings"] == findings
    assert {c.id: c.body for c in fake.review_comments_for(1)} == before
    assert len(fake.reviews_for(1)) == n_reviews
    assert [c.body for c in fake.issue_comments_for(1)] == [sticky_body]
    assert len(fake.calls("pulls/create-review")) + len(fake.calls("issues/update-comment")) == writes
    assert not fake.calls("pulls/delete-review-comment")

    # --- run 3: the author fixes two findings; one fixed comment has a human reply -------
    maturity = next(c for c in comments if c.path == CSV and "maturity" in c.body)
    answered = next(c for c in comments if c.path == CM and c.line == 7)  # setting-00
    fake.add_review_comment(1, CM, None, "Done, thanks!", login="contributor", in_reply_to=answered.id)

    def fix(ws):
        p = ws / CSV
        p.write_text(p.read_text().replace("  maturity: alpha\n", ""))
        p = ws / CM
        p.write_text(p.read_text().replace('  setting-00: "on"\n  setting-00: "on"\n', '  setting-00: "on"\n'))

    head3 = commit_overlay(ws, edit=fix, message="fix")
    sync_pull(fake, ws, base, head3)
    r3 = run_action(fake, tmp_path, ws, "run3")
    ids = {c.id for c in fake.review_comments_for(1)}
    assert maturity.id not in ids  # stale, own, no replies: removed
    assert answered.id in ids  # stale but answered: kept
    assert len(fake.calls("pulls/delete-review-comment")) == 1
    assert not any(f["path"] == CSV and f["rule"] == "yaml-duplicate-key" for f in r3["report"]["findings"])
    assert len(fake.check_runs_for(head3, "olm-check")) == 1
    assert len(fake.issue_comments_for(1)) == 1  # updated in place
    assert fake.issue_comments_for(1)[0].body != sticky_body
    assert fake.violations == []


def test_shallow_checkout_uses_the_paginated_files_api(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    pr = sync_pull(fake, ws, base, head)
    for i in range(130):  # more files than one page: notes beside the bundle, not on disk here
        pr.add_file(f"{NEW}/notes/n{i:03}.txt", "@@ -0,0 +1 @@\n+note")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{ws}", str(shallow)],
                   check=True, capture_output=True)
    assert subprocess.run(["git", "-C", str(shallow), "cat-file", "-e", f"{base}^{{commit}}"],
                          capture_output=True).returncode != 0
    r = run_action(fake, tmp_path, shallow, "run")
    assert r["rc"] == 1
    pages = fake.calls("pulls/list-files")
    assert len(pages) == 2 and pages[0].query.get("per_page") == "100"
    assert [b["path"] for b in r["report"]["bundles"]] == [NEW]
    assert "GitHub API" in r["summary"]
    comments = fake.review_comments_for(1)
    assert comments and all(c.path in (CSV, CM) for c in comments)
    assert fake.violations == []


def test_fork_pull_request_writes_nothing_and_says_so(fake_github, tmp_path):
    """A pull request from a fork under `pull_request` (head repository != base repository,
    read from the event): no write is even tried; annotations of the step instead."""
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    fake.add_pull(1, head_sha=head, base_sha=base, fork=True)
    sync_pull(fake, ws, base, head)
    fake.add_token("ghs_forkReadOnlyToken000000000000000000", login="github-actions[bot]", type="Bot", write=False)
    r = run_action(fake, tmp_path, ws, "run", token="ghs_forkReadOnlyToken000000000000000000")
    assert r["rc"] == 1
    assert not fake.check_runs and not fake.review_comments_for(1) and not fake.issue_comments_for(1)
    assert [q for q in fake.requests if q.method != "GET"] == []
    errors = [l for l in r["stdout"].splitlines() if l.startswith("::error ")]
    warnings = [l for l in r["stdout"].splitlines() if l.startswith("::warning ")]
    assert 1 <= len(errors) <= 10 and len(warnings) == 10
    assert any("maturity" in l for l in errors)
    assert "comes from a fork" in r["summary"] and "posted nothing" in r["summary"]
    assert_every_finding_in_summary(r)
    assert fake.violations == []
    assert_no_token_leak(fake, r)


def test_read_only_token_is_refused_per_resource(fake_github, tmp_path):
    """`permissions: contents: read` on a same-repository PR: each resource is tried once and
    refused on its own; the check run's findings become annotations of the step."""
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.add_token("ghs_readOnlyToken00000000000000000000000", login="github-actions[bot]", type="Bot", write=False)
    r = run_action(fake, tmp_path, ws, "run", token="ghs_readOnlyToken00000000000000000000000")
    assert r["rc"] == 1
    writes = [q.operation for q in fake.requests if q.method != "GET"]
    assert writes == ["checks/create", "pulls/create-review", "issues/create-comment"]
    assert not fake.check_runs and not fake.review_comments_for(1) and not fake.issue_comments_for(1)
    for what in ("check run", "review", "summary comment"):
        assert f"The {what} was refused (403" in r["summary"]
    assert [l for l in r["stdout"].splitlines() if l.startswith("::error ")]
    assert_every_finding_in_summary(r)
    assert fake.violations == []


def test_server_errors_and_secondary_rate_limits_lose_nothing(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.fail("POST", r".*/check-runs", 502, times=2)
    fake.fail("PATCH", r".*/check-runs/\d+", "secondary-rate-limit", times=1, retry_after=1)
    fake.fail("POST", r".*/pulls/1/reviews", "secondary-rate-limit", times=1, retry_after=1, status=429)
    fake.fail("GET", r".*/issues/1/comments", 503, times=1)
    fake.fail("POST", r".*/issues/1/comments", 500, times=None)  # the sticky comment never gets through
    r = run_action(fake, tmp_path, ws, "run")
    assert r["rc"] == 1
    rep = r["report"]
    # every finding on its line once: an annotation, or an inline comment
    assert len(fake.check_runs_for(head, "olm-check")[0].annotations) == len(rep["findings"]) - 30
    assert len(fake.review_comments_for(1)) == 30
    assert not fake.issue_comments_for(1)
    assert "summary comment could not be posted (500" in r["summary"]
    assert_every_finding_in_summary(r)
    assert sum(1 for f in rep["findings"] if f["rule"] == "yaml-duplicate-key") == 61
    # retry-after honoured: the rate-limited requests were retried, not dropped
    # (31 annotations fit the create: the PATCH fault is never reached)
    limited = [q for q in fake.requests if q.fault and "secondary" in q.fault]
    assert len(limited) == 1
    assert fake.violations == []


def test_review_refused_with_422_falls_back_to_single_comments(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    fake.fail("POST", r".*/pulls/1/reviews", 422, times=1)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_CHECK_RUN": "false", "INPUT_SUMMARY_COMMENT": "false"})
    assert r["rc"] == 1
    assert len(fake.calls("pulls/create-review-comment")) == 30
    assert len(fake.review_comments_for(1)) == 30
    assert not fake.check_runs and not fake.issue_comments_for(1)
    assert fake.violations == []


def test_push_event_reports_on_the_pushed_commit(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    fake.add_commit(head, [base])
    payload = fake.push_event(before=base, after=head)
    r = run_action(fake, tmp_path, ws, "run", number=None, event_name="push", payload=payload,
                   inputs={"INPUT_FAIL_ON": "never"})
    assert r["rc"] == 0
    assert [b["path"] for b in r["report"]["bundles"]] == [NEW]
    runs = fake.check_runs_for(head, "olm-check")
    assert len(runs) == 1 and runs[0].conclusion == "neutral"
    assert not fake.calls("pulls/create-review") and not fake.calls("issues/create-comment")
    assert fake.violations == []


def test_enterprise_server_api_prefix(tmp_path):
    with FakeGitHub(api_prefix="/api/v3") as fake:
        ws, base, head = make_repo(tmp_path)
        sync_pull(fake, ws, base, head)
        r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_REVIEW_COMMENTS": "false"})
        assert r["rc"] == 1
        assert fake.check_runs_for(head, "olm-check") and fake.issue_comments_for(1)
        assert all(q.path.startswith("/api/v3/") for q in fake.requests)
        assert fake.violations == []


def test_pull_request_target_with_the_base_checked_out_says_so(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    git(ws, "checkout", "-q", "main")  # pull_request_target's default checkout: the base
    r = run_action(fake, tmp_path, ws, "run", event_name="pull_request_target",
                   inputs={"INPUT_REVIEW_COMMENTS": "false", "INPUT_SUMMARY_COMMENT": "false"})
    assert "not the pull request's head" in r["summary"]
    assert r["report"]["bundles"] == []  # the new bundle is not in the base's files
    assert fake.violations == []


def test_outside_actions_the_arguments_are_the_command_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["PYTHONPATH"] = str(ROOT)
    bundle = FIX / "pr-new-bundle" / NEW
    p = subprocess.run([sys.executable, str(ENTRY), str(bundle)], env=env, capture_output=True, text=True,
                       timeout=60, cwd=str(tmp_path))
    assert p.returncode == 1, p.stderr
    assert "error" in p.stdout and "yaml-duplicate-key" in p.stdout and "bundle(s) checked" in p.stdout
    p = subprocess.run([sys.executable, str(ENTRY), "rules", "--format", "json"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and any(r["id"] == "pr-shape" for r in json.loads(p.stdout)["rules"])


def test_bad_inputs_are_usage_errors(fake_github, tmp_path):
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_FAIL_ON": "sometimes"})
    assert r["rc"] == 2 and "fail_on" in r["stdout"]
    r = run_action(fake, tmp_path, ws, "run2", inputs={"INPUT_PATH": "../.."})
    assert r["rc"] == 2 and "outside the workspace" in r["stdout"]
    assert not fake.requests


def test_fork_safe_second_workflow_on_workflow_run(fake_github, tmp_path):
    """The README's two-workflow pattern: the privileged `workflow_run` job checks out the
    PR head as data (shallow, in a subdirectory) and names the PR with the pull_request input."""
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    sync_pull(fake, ws, base, head)
    job = tmp_path / "job"
    job.mkdir()
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{ws}", str(job / "pr")],
                   check=True, capture_output=True)
    # workflow_run payloads are not in the vendored webhook cut: the fields olm-check reads
    payload = {"action": "completed", "workflow_run": {"id": 99, "head_sha": head, "pull_requests": [],
                                                       "head_repository": {"full_name": "owner/repo"},
                                                       "event": "pull_request", "conclusion": "success"}}
    fake.add_commit(head, [base])
    env_pr = fake.pulls[1]
    env_pr_event = fake.push_event(before=base, after=head)
    r = run_action(fake, tmp_path, job, "run", number=None, event_name="push", payload=env_pr_event,
                   inputs={"GITHUB_EVENT_NAME": "workflow_run", "INPUT_PATH": "pr", "INPUT_PULL_REQUEST": "1",
                           "GITHUB_SHA": base},
                   rewrite_event=payload)
    assert r["rc"] == 1, r["stderr"]
    assert [b["path"] for b in r["report"]["bundles"]] == [NEW]
    assert fake.calls("pulls/get") and fake.calls("pulls/list-files")
    assert len(fake.check_runs_for(head, "olm-check")) == 1
    assert len(fake.review_comments_for(1)) == 30 and len(fake.issue_comments_for(1)) == 1
    assert (job / "olm-check-report.json").exists()
    assert env_pr.head_sha == head and fake.violations == []
    bad = run_action(fake, tmp_path, job, "run2", number=None, event_name="push", payload=env_pr_event,
                     inputs={"GITHUB_EVENT_NAME": "workflow_run", "INPUT_PATH": "pr", "INPUT_PULL_REQUEST": "1; rm -rf /"},
                     rewrite_event=payload)
    assert bad["rc"] == 2 and "not a pull request number" in bad["stdout"]


def test_suggestions_and_hostile_bundle_text(fake_github, tmp_path):
    """A finding with a one-line fix becomes a GitHub suggestion; text from the bundle (here a
    repeated key named to mention people and inject HTML and links) is inert everywhere."""
    fake = fake_github
    ws, base, _ = make_repo(tmp_path)
    hostile = "@octocat <img src=x onerror=alert(1)> [x](https://evil.example) #1"

    def edit(ws):
        ann = ws / NEW / "metadata/annotations.yaml"
        ann.write_text(ann.read_text().replace('com.redhat.openshift.versions: "v4.14"',
                                               'com.redhat.openshift.versions: "4.14"'))
        cm = ws / CM
        cm.write_text(cm.read_text() + f"  {json.dumps(hostile)}: a\n  {json.dumps(hostile)}: b\n")
        # ocp-versions-style is info (only errors and warnings are commented): the repository raises it
        # (yaml-lint stays off, as run_action keeps it: its 60 key-duplicates errors would fill the inline cap)
        (ws / ".olm-check.yaml").write_text("rules: {ocp-versions-style: warning, yaml-lint: \"off\"}\n")

    head = commit_overlay(ws, edit=edit, message="hostile")
    sync_pull(fake, ws, base, head)
    r = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_CHECK_RUN": "false"})
    assert r["rc"] == 1
    style = [f for f in r["report"]["findings"] if f["rule"] == "ocp-versions-style"]
    assert style and style[0]["fix"] and "v4.14" in style[0]["fix"]["replacement"]
    ann_comments = [c for c in fake.review_comments_for(1) if c.path.endswith("metadata/annotations.yaml")]
    assert ann_comments and f"```suggestion\n{style[0]['fix']['replacement']}\n```" in ann_comments[0].body
    hostile_findings = [f for f in r["report"]["findings"] if "octocat" in f["message"]]
    assert hostile_findings and hostile_findings[0]["severity"] == "error"
    bodies = [c.body for c in fake.review_comments_for(1)] + [c.body for c in fake.issue_comments_for(1)] + [r["summary"]]
    assert any("octocat" in b for b in bodies[:-2])  # the hostile finding is inline
    for b in bodies:
        assert "@octocat" not in b and "<img" not in b and "](https://evil" not in b and "#1 " not in b
    assert fake.violations == []


def test_a_path_input_holding_nothing_to_check_fails_the_step(fake_github, tmp_path):
    """Outside a pull request the whole `path` is checked: one that holds no bundle (a
    mistyped `path: docs`) is exit 2 with the reason, not a green step that checked nothing."""
    fake = fake_github
    ws, base, head = make_repo(tmp_path)
    (ws / "docs").mkdir()
    (ws / "docs" / "index.yaml").write_text("title: docs\n")
    r = run_action(fake, tmp_path, ws, "run", number=None, event_name="workflow_dispatch",
                   payload={"ref": "refs/heads/feature", "after": head, "inputs": {}}, inputs={"INPUT_PATH": "docs"})
    assert r["rc"] == 2, r["stdout"] + r["stderr"]
    assert "input path: nothing to check in docs" in r["stdout"]
    r = run_action(fake, tmp_path, ws, "run2", number=None, event_name="workflow_dispatch",
                   payload={"ref": "refs/heads/feature", "after": head, "inputs": {}}, inputs={"INPUT_FAIL_ON": "never"})
    assert r["rc"] == 0 and r["report"]["bundles"], r["stdout"] + r["stderr"]
