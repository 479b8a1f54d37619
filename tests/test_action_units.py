"""The action's parts on their own: change lists from git, affected bundles, diff lines,
Markdown escaping of bundle text, the client's retries, --changed-since with pr-shape."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fakegithub.plugin import fake_github_fixture  # noqa: E402,F401  (fixture fake_github)

from checker.action.client import ApiError, GitHub, ReadOnly  # noqa: E402
from checker.action.diffmap import right_lines, split_git_diff  # noqa: E402
from checker.changes import affected, from_github_files, git_changes, parse_name_status, split_renames  # noqa: E402
from checker.finding import Finding, Fix  # noqa: E402
from checker.model import FileChange  # noqa: E402
from checker.report.markdown import code, text  # noqa: E402
from helpers import run_cli  # noqa: E402
from conftest import FIXTURES  # noqa: E402

ROOT = HERE.parent
FIX = Path(FIXTURES) / "action"  # materialised: fixtures/files.yaml names some of its files


def git(ws, *args) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "HOME": str(ws)}
    return subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """catalog-base on main; a feature branch adding a bundle; main then gains another file."""
    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    base = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-q", "-b", "feature")
    shutil.copytree(FIX / "pr-new-bundle", ws, dirs_exist_ok=True)
    git(ws, "mv", "README.md", "README-catalog.md")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "head")
    head = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-q", "main")
    (ws / "NOTES.md").write_text("main moved on\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "main moves")
    main = git(ws, "rev-parse", "HEAD")
    git(ws, "checkout", "-q", "feature")
    return ws, base, head, main


def test_git_changes_are_three_dot_with_renames(repo):
    ws, base, head, main = repo
    changes = git_changes(str(ws), main, head)  # main has moved on: its NOTES.md is not the PR's
    paths = {c.path for c in changes}
    assert "NOTES.md" not in paths
    assert "operators/example-operator/1.1.0/manifests/settings.configmap.yaml" in paths
    ren = [c for c in changes if c.status == "renamed"]
    assert [(c.previous_path, c.path) for c in ren] == [("README.md", "README-catalog.md")]
    assert ("removed", "README.md") in split_renames(changes) and ("added", "README-catalog.md") in split_renames(changes)


def test_affected_maps_files_to_bundles_operators_and_loose_files(repo):
    ws, base, head, main = repo
    changes = git_changes(str(ws), base, head) + [
        FileChange("removed", "operators/example-operator/0.9.0/manifests/old.yaml"),
        FileChange("modified", "catalogs/v4.16/example-operator/catalog.yaml"),
    ]
    a = affected(str(ws), changes)
    assert a.bundles == ["operators/example-operator/1.1.0"]
    assert a.deleted_bundles == ["operators/example-operator/0.9.0"]
    assert a.operators == ["operators/example-operator"]
    assert a.catalogs == ["catalogs/v4.16/example-operator"]
    assert a.paths == ["operators/example-operator"]  # its bundles load as context
    only_deletions = affected(str(ws), [FileChange("removed", "operators/example-operator/0.9.0/manifests/old.yaml")])
    assert only_deletions.deleted_bundles == ["operators/example-operator/0.9.0"]
    assert only_deletions.paths == []  # nothing to check: the operator's bundles are not loaded
    scoped = affected(str(ws), changes, scope="operators/other")
    assert scoped.bundles == [] and len(scoped.outside) == len({p for _, p in split_renames(changes)})


def test_name_status_and_github_files_parsing():
    data = b"A\0a.yaml\0R087\0old/x.yaml\0new/x.yaml\0D\0gone.yaml\0C100\0src.yaml\0copy.yaml\0T\0link\0"
    assert [(c.status, c.path, c.previous_path) for c in parse_name_status(data)] == [
        ("added", "a.yaml", None), ("renamed", "new/x.yaml", "old/x.yaml"), ("removed", "gone.yaml", None),
        ("added", "copy.yaml", None), ("modified", "link", None)]
    files = [{"filename": "a", "status": "added"}, {"filename": "b", "status": "renamed", "previous_filename": "c"},
             {"filename": "d", "status": "unchanged"}, {"filename": "e", "status": "copied"}, {"nonsense": 1}, "x"]
    assert [(c.status, c.path, c.previous_path) for c in from_github_files(files)] == [
        ("added", "a", None), ("renamed", "b", "c"), ("added", "e", None)]


def test_right_side_lines_from_patches():
    patch = "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n\\ No newline at end of file\n@@ -10,2 +11,2 @@\n x\n-y\n+Y"
    assert right_lines(patch) == {1, 2, 3, 4, 11, 12}
    assert right_lines(None) == set()
    diff = ("diff --git a/f.yaml b/f.yaml\nindex 1..2 100644\n--- a/f.yaml\n+++ b/f.yaml\n@@ -1 +1 @@\n-a\n+b\n"
            "diff --git a/gone.yaml b/gone.yaml\ndeleted file mode 100644\n--- a/gone.yaml\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n")
    files = split_git_diff(diff)
    assert list(files) == ["f.yaml"] and right_lines(files["f.yaml"]) == {1}


@pytest.mark.parametrize("hostile", [
    "@octocat please look", "see https://evil.example/x and www.evil.example", "<img src=x onerror=alert(1)>",
    "[click](https://evil.example)", "fixes #1 and GH-2", "a | b | c", "`tick` ``double``", "**bold** _it_",
    "<!-- olm-check:fp=0000000000000000 -->", "line\nbreak\r\nhere", "mail me@example.com",
])
def test_bundle_text_is_inert_markdown(hostile):
    out = text(hostile)
    assert "\n" not in out and "\r" not in out
    assert "<" not in out and ">" not in out  # no HTML, no <autolink>, no hidden marker
    assert "](" not in out  # no link
    shown = out.replace("&#8203;", "\u200b")
    for trigger in ("@", "#", "https", "www", "GH"):
        i = shown.find(trigger)
        while i >= 0:  # every trigger is followed by a zero-width space
            assert shown[i + len(trigger):].startswith("\u200b"), (trigger, out)
            i = shown.find(trigger, i + 1)
    assert "|" not in out.replace("\\|", "")  # a table cell cannot be broken
    assert "&\\#" not in out and "&#64;" not in out  # entities are not broken by escaping


def test_code_spans_hold_any_text():
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("a|b") == "`a\\|b`" and code("a|b", table=False) == "`a|b`"
    assert code("") == "`  `"  # all-space spans keep their spaces: an empty value stays visible


def test_fingerprint_ignores_line_numbers_in_messages():
    a = Finding("yaml-duplicate-key", "the key 'x' is repeated (first at line 6)", "m.yaml", 7)
    b = Finding("yaml-duplicate-key", "the key 'x' is repeated (first at line 9)", "m.yaml", 10)
    c = Finding("yaml-duplicate-key", "the key 'y' is repeated (first at line 6)", "m.yaml", 7)
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()


def test_suggestion_block_survives_backticks_in_the_fix():
    from checker.action.reporters import comment_body

    f = Finding("r", "message", "a.yaml", 3, severity="error", fix=Fix(3, "key: ```weird```", "quote it"))
    body = comment_body(f)
    assert "````suggestion\nkey: ```weird```\n````" in body
    assert body.rstrip().endswith(f"<!-- olm-check:fp={f.fingerprint()} -->")


def test_client_retries_5xx_and_honours_retry_after(fake_github):
    fake = fake_github
    fake.add_pull(1)
    slept = []
    gh = GitHub(fake.url, "owner/repo", fake.token, base_delay=0.01, sleep=slept.append)
    fake.fail("GET", r".*/pulls/1/files", 502, times=2)
    fake.fail("GET", r".*/pulls/1/comments", "secondary-rate-limit", retry_after=7)
    assert gh.paginate("pulls/1/files") == []
    assert gh.paginate("pulls/1/comments") == []
    assert slept[-1] == 7.0 and len(slept) == 3
    fake.fail("GET", r".*/issues/1/comments", 500, times=None)
    with pytest.raises(ApiError) as e:
        gh.get("issues/1/comments")
    assert e.value.status == 500 and fake.token not in str(e.value)
    assert fake.violations == []


def test_a_read_only_refusal_stops_only_that_request(fake_github):
    fake = fake_github
    fake.add_pull(1)
    fake.add_token("ghs_readonly0000000000000000000000000000", write=False)
    gh = GitHub(fake.url, "owner/repo", "ghs_readonly0000000000000000000000000000", sleep=lambda s: None)
    with pytest.raises(ReadOnly):
        gh.post("issues/1/comments", {"body": "x"})
    n = len(fake.requests)
    with pytest.raises(ReadOnly):  # another resource is still asked, once (no retry of a 403)
        gh.post("pulls/1/reviews", {"commit_id": fake.pulls[1].head_sha, "event": "COMMENT", "body": "y"})
    assert len(fake.requests) == n + 1
    assert gh.paginate("issues/1/comments") == []  # reading still works


def test_changed_since_runs_pr_shape_locally(repo):
    ws, base, head, main = repo
    # the branch also edits the released bundle 1.0.0
    csv = ws / "operators/example-operator/1.0.0/manifests/example-operator.clusterserviceversion.yaml"
    csv.write_text(csv.read_text().replace("Manages example widgets.", "Manages widgets."))
    p = run_cli("check", ".", "--changed-since", "main", "--format", "json", cwd=str(ws))
    assert p.returncode == 1, p.stderr
    import json

    rep = json.loads(p.stdout)
    shape = [f for f in rep["findings"] if f["rule"] == "pr-shape"]
    msgs = " ".join(f["message"] for f in shape)
    assert "modifies the existing bundle operators/example-operator/1.0.0" in msgs
    assert "README" in msgs  # the renamed README is outside operators/ and catalogs/
    assert {b["path"] for b in rep["bundles"]} == {"operators/example-operator/1.0.0", "operators/example-operator/1.1.0"}
    bad = run_cli("check", ".", "--changed-since", "no-such-ref", cwd=str(ws))
    assert bad.returncode == 2 and "no-such-ref" in bad.stderr and "Traceback" not in bad.stderr


def test_every_declared_dependency_is_imported():
    """pyproject.toml declares only what checker/ imports (PyGithub was declared and never
    used: removed, the README says why)."""
    import ast
    import importlib.metadata as md
    import re as _re

    try:
        import tomllib
    except ImportError:  # Python < 3.11
        pytest.skip("tomllib needs Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {_re.split(r"[<>=!~ ;\[]", d, 1)[0].lower().replace("_", "-") for d in project["dependencies"]}
    imported = set()
    for path in (ROOT / "checker").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    dists = md.packages_distributions()
    used = {d.lower().replace("_", "-") for mod in imported for d in dists.get(mod, [])}
    assert declared - used == set(), f"declared but never imported: {sorted(declared - used)}"


def test_every_input_is_read_and_documented():
    import yaml

    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    env_src = (ROOT / "checker" / "action" / "env.py").read_text()
    # the Action's documentation (docs/action.md), or docs/pull-requests.md's (the pull-request inputs)
    readme = (ROOT / "docs" / "action.md").read_text() + (ROOT / "docs" / "pull-requests.md").read_text()
    for name in inputs:
        assert f'"{name}"' in env_src or f"INPUT_{name.upper()}" in env_src, name
        assert f"| `{name}` |" in readme, name


def test_a_deleted_fork_is_still_a_fork():
    from checker.action.env import PullRequest

    assert PullRequest(1, "h", "b", None, "owner/repo").from_fork  # head.repo null: the fork is gone
    assert PullRequest(1, "h", "b", "someone/repo", "owner/repo").from_fork
    assert not PullRequest(1, "h", "b", "Owner/Repo", "owner/repo").from_fork
