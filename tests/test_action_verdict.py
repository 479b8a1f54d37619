"""A pull request never decides its own verdict (issue 34): under pull_request_target and
workflow_run (``config_from_base``, their default) the configuration, the catalog's root
config.yaml and the inline ignores that count come from the base; end to end against the
fake GitHub (every request validated against GitHub's OpenAPI description)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fakegithub.plugin import fake_github_fixture  # noqa: E402,F401  (fixture fake_github)
from test_action_e2e import CM, CSV, FIX, commit_overlay, git, run_action, sync_pull  # noqa: E402

QUIET = {"INPUT_REVIEW_COMMENTS": "false", "INPUT_SUMMARY_COMMENT": "false"}
EVENTS = ["pull_request", "pull_request_target", "workflow_run"]


def make_base(tmp_path: Path, maturity: str = "", edit=None) -> tuple:
    """The catalog with the pull request's bundle already at the base, its CSV's repeated
    `maturity` line (an error) replaced by ``maturity`` (nothing: the bundle has no error),
    ``edit`` applied, a repository configuration that turns off yaml-lint and pr-shape (the
    PR changes that bundle); a ``feature`` branch checked out on it."""
    import shutil

    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    shutil.copytree(FIX / "pr-new-bundle", ws, dirs_exist_ok=True)
    (ws / ".olm-check.yaml").write_text('rules: {yaml-lint: "off", pr-shape: "off"}\n')
    set_maturity(ws, maturity)
    if edit is not None:
        edit(ws)
    git(ws, "init", "-q", "-b", "main")
    base = commit_overlay(ws, message="base")
    git(ws, "checkout", "-q", "-b", "feature")
    return ws, base


def set_maturity(ws: Path, line: str) -> None:
    """The CSV's line after its first `maturity` becomes ``line`` (the fixture's repeated
    key; added again when the base removed it; "" removes it)."""
    p = ws / CSV
    lines = p.read_text().split("\n")
    j = next(n for n, x in enumerate(lines) if x.startswith("  maturity:"))
    if lines[j + 1].startswith("  maturity:"):
        del lines[j + 1]
    if line:
        lines.insert(j + 1, line)
    p.write_text("\n".join(lines))


REPEATED = "  maturity: alpha"
IGNORED = "  maturity: alpha  # olm-check: ignore"


def serve_base(fake, ws: Path, base: str) -> None:
    """Every file of the base commit through the fake's contents API (a shallow checkout
    reads the base from there)."""
    for rel in git(ws, "ls-tree", "-r", "--name-only", base).split("\n"):
        fake.add_content(base, rel, git(ws, "show", f"{base}:{rel}") + "\n")


def run_event(fake, tmp_path: Path, ws: Path, name: str, event: str, inputs=None):
    """The action on PR 1 under ``event``: pull_request and pull_request_target on the full
    checkout, workflow_run as the README's fork-safe second workflow (a shallow clone of the
    head in ``pr/``, the number verified against the triggering run)."""
    inputs = {**QUIET, **(inputs or {})}
    if event != "workflow_run":
        return run_action(fake, tmp_path, ws, name, event_name=event, inputs=inputs)
    pr = fake.pulls[1]
    job = tmp_path / f"job-{name}"
    job.mkdir()
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{ws}", str(job / "pr")],
                   check=True, capture_output=True)
    payload = {"action": "completed", "workflow_run": {
        "id": 99, "head_sha": pr.head_sha, "head_repository": {"full_name": "owner/repo"}, "pull_requests": [],
        "event": "pull_request", "conclusion": "success"}}
    return run_action(fake, tmp_path, job, name, number=None, event_name="push",
                      payload=fake.push_event(before=pr.base_sha, after=pr.head_sha),
                      inputs={"GITHUB_EVENT_NAME": "workflow_run", "INPUT_PATH": "pr", "INPUT_PULL_REQUEST": "1",
                              **inputs},
                      rewrite_event=payload)


def pull(fake, ws: Path, base: str, edit, message="head") -> str:
    head = commit_overlay(ws, edit=edit, message=message)
    sync_pull(fake, ws, base, head)
    return head


def errors(r) -> list:
    return sorted((f["rule"], f["line"]) for f in r["report"]["findings"] if f["severity"] == "error")


def touch_configmap(ws: Path) -> None:
    cm = ws / CM
    cm.write_text(cm.read_text() + "  touched: by-the-pull-request\n")


def conclusion(fake, head):
    return fake.check_runs_for(head)[-1].conclusion


@pytest.mark.parametrize("event", EVENTS)
def test_the_pull_requests_own_inline_ignore(fake_github, tmp_path, event):
    """The PR writes the repeated `maturity` key (an error) with `# olm-check: ignore` on it:
    pull_request honours it (the checked tree is trusted); pull_request_target and
    workflow_run do not (exit 1, check run failure)."""
    fake = fake_github
    ws, base = make_base(tmp_path)
    serve_base(fake, ws, base)
    head = pull(fake, ws, base, lambda ws: set_maturity(ws, IGNORED), "hide my error")
    r = run_event(fake, tmp_path, ws, "run", event)
    if event == "pull_request":
        assert r["rc"] == 0 and errors(r) == [] and conclusion(fake, head) == "neutral"
    else:
        assert r["rc"] == 1, r["stdout"] + r["stderr"]
        assert errors(r) == [("yaml-duplicate-key", 32)] and conclusion(fake, head) == "failure"
        assert "Inline ignores: only" in r["summary"]
    assert fake.violations == []


@pytest.mark.parametrize("event", EVENTS)
def test_an_ignore_the_base_has_on_an_unchanged_line_counts(fake_github, tmp_path, event):
    """The maintainers' own ignore (at the base, on a line the PR leaves alone) counts under
    every event: the PR changes another file of the bundle; the finding is not reported."""
    fake = fake_github
    ws, base = make_base(tmp_path, IGNORED)
    serve_base(fake, ws, base)
    head = pull(fake, ws, base, touch_configmap, "another file")
    r = run_event(fake, tmp_path, ws, "run", event)
    assert r["rc"] == 0 and errors(r) == [], r["stdout"] + r["stderr"]
    assert conclusion(fake, head) == "neutral" and fake.violations == []


@pytest.mark.parametrize("event", EVENTS)
def test_an_ignore_on_a_line_the_pull_request_rewrites_does_not_count(fake_github, tmp_path, event):
    """The base ignores the repeated key; the PR rewrites that very line (another value, the
    same comment): under pull_request_target and workflow_run that is the PR's word."""
    fake = fake_github
    ws, base = make_base(tmp_path, IGNORED)
    serve_base(fake, ws, base)
    pull(fake, ws, base, lambda ws: set_maturity(ws, IGNORED.replace("alpha", "beta")), "rewrite the ignored line")
    r = run_event(fake, tmp_path, ws, "run", event)
    assert r["rc"] == (0 if event == "pull_request" else 1), r["stdout"] + r["stderr"]
    assert fake.violations == []


MARKETPLACE = "organization: redhat-marketplace\n"
WAIVING = ("organization: community-operators\ntests:\n  - name: yaml-lint\n"
           "    ignore_operators: [example-operator]\n")


@pytest.mark.parametrize("event", EVENTS)
def test_the_pull_requests_own_catalog_config(fake_github, tmp_path, event):
    """The base's config.yaml names redhat-marketplace; the PR's names community-operators,
    waives the yaml-lint gate for its operator and adds the repeated key. pull_request: the
    PR's word (the key waived to a warning, no marketplace annotation needed: exit 0);
    pull_request_target and workflow_run: the base's (marketplace, nothing waived: exit 1)."""
    fake = fake_github
    ws, base = make_base(tmp_path, edit=lambda ws: (ws / "config.yaml").write_text(MARKETPLACE))
    serve_base(fake, ws, base)

    def edit(ws):
        (ws / "config.yaml").write_text(WAIVING)
        set_maturity(ws, REPEATED)

    pull(fake, ws, base, edit, "my own target and waivers")
    r = run_event(fake, tmp_path, ws, "run", event)
    rules = sorted({rule for rule, _ in errors(r)})
    if event == "pull_request":
        assert r["rc"] == 0 and rules == []
    else:
        assert r["rc"] == 1, r["stdout"] + r["stderr"]
        assert rules == ["marketplace-annotation", "yaml-duplicate-key"]
        assert "Catalog: `config.yaml`" in r["summary"]
        assert ("(git)" if event == "pull_request_target" else "(GitHub API)") in r["summary"]
    assert fake.violations == []


@pytest.mark.parametrize("event", ["pull_request_target", "workflow_run"])
def test_a_catalog_config_the_pull_request_adds_does_not_count(fake_github, tmp_path, event):
    """No config.yaml at the base: the PR's new one (waiving the yaml-lint gate) does not count."""
    fake = fake_github
    ws, base = make_base(tmp_path)
    serve_base(fake, ws, base)

    def edit(ws):
        (ws / "config.yaml").write_text(WAIVING)
        set_maturity(ws, REPEATED)

    pull(fake, ws, base, edit, "my own waivers")
    r = run_event(fake, tmp_path, ws, "run", event)
    assert r["rc"] == 1 and "no `config.yaml` there" in r["summary"], r["stdout"] + r["stderr"]
    assert fake.violations == []


def test_config_from_base_false_trusts_the_tree(fake_github, tmp_path):
    """`config_from_base: false` under pull_request_target: the workflow's author chose to
    trust the checked tree; its ignores count (docs/action.md says why not to)."""
    fake = fake_github
    ws, base = make_base(tmp_path)
    pull(fake, ws, base, lambda ws: set_maturity(ws, IGNORED), "hide")
    r = run_event(fake, tmp_path, ws, "run", "pull_request_target", inputs={"INPUT_CONFIG_FROM_BASE": "false"})
    assert r["rc"] == 0 and "Inline ignores" not in r["summary"]


def test_the_catalogs_releases_come_from_the_base(fake_github, tmp_path):
    """The base's catalogs/ releases, through git and through the contents API (a shallow
    checkout): a release directory the PR deletes still counts, one it adds does not."""
    from checker.action import _base_names
    from checker.action.env import ActionEnv, PullRequest

    fake = fake_github

    def release(ws, name):
        d = ws / "catalogs" / name / "example-operator"
        d.mkdir(parents=True)
        (d / "catalog.yaml").write_text("schema: olm.package\nname: example-operator\n")

    ws, base = make_base(tmp_path, edit=lambda ws: release(ws, "v4.17"))
    serve_base(fake, ws, base)

    def edit(ws):
        import shutil

        shutil.rmtree(ws / "catalogs" / "v4.17")
        release(ws, "v4.99")

    head = pull(fake, ws, base, edit, "my own releases")
    env = ActionEnv(str(ws), pull=PullRequest(1, head, base, "owner/repo", "owner/repo", None))
    assert _base_names(env, None, str(ws), "catalogs") == ("v4.17",)
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{ws}", str(shallow)],
                   check=True, capture_output=True)
    from checker.action.client import GitHub

    gh = GitHub(fake.url, "owner/repo", fake.token, sleep=lambda s: None, write_spacing=0)
    assert _base_names(env, gh, str(shallow), "catalogs") == ("v4.17",)
    assert _base_names(env, gh, str(shallow), "nothing-here") == ()
    assert fake.violations == []
