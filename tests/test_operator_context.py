"""The operator is the unit of context: a bundle is checked with its operator around it,
however it is named -- its directory, a file of it (as pre-commit passes them), its
operator's directory, the repository root, a pull request's change list -- inside a git work
tree or in a plain copy, and the findings about it are the same every way."""
import os
import shutil
import subprocess

import pytest

from checker.api import check
from tests.helpers import run_cli, run_json
from tests.trees import FIXTURES, build_tree

SMALL = os.path.join(FIXTURES, "catalog-small")


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com"))


def _tree(tmp_path, git: bool) -> str:
    dest = str(tmp_path / ("work" if git else "copy"))
    shutil.copytree(SMALL, dest, symlinks=True)
    if git:
        _git(dest, "init", "-q")
        _git(dest, "add", "-A")
        _git(dest, "commit", "-q", "-m", "catalog")
    return dest


def _bundles(root: str) -> list:
    ops = os.path.join(root, "operators")
    return sorted(os.path.join("operators", o, v) for o in os.listdir(ops) if os.path.isdir(os.path.join(ops, o))
                  for v in os.listdir(os.path.join(ops, o)) if os.path.isdir(os.path.join(ops, o, v)))


def _about(findings, bundle: str) -> list:
    return sorted((f.rule, f.severity, f.path, f.line, f.message) for f in findings
                  if f.path == bundle or f.path.startswith(bundle + "/"))


@pytest.mark.parametrize("git", [True, False], ids=["git", "plain"])
def test_a_bundle_has_the_same_findings_however_it_is_named(tmp_path, monkeypatch, git):
    root = _tree(tmp_path, git)
    monkeypatch.chdir(root)
    audit = check(["."]).findings
    bundles = _bundles(root)
    assert len(bundles) == 8
    by_operator = {}
    for b in bundles:
        op = os.path.dirname(b)
        if op not in by_operator:
            by_operator[op] = check([op]).findings
        alone = check([b])
        assert [e["path"] for e in alone.report["bundles"]] == [b]  # the context bundles are not reported
        assert _about(alone.findings, b) == _about(by_operator[op], b) == _about(audit, b), b
        assert not any("symbolic link" in f.message for f in alone.findings), b


def test_no_symlink_finding_without_a_symlink_in_a_plain_copy(tmp_path):
    root = _tree(tmp_path, git=False)
    bundle = os.path.join(root, "operators", "beta-op", "1.1.0")
    # from elsewhere, by absolute path: the checked tree is still the catalog repository
    code, rep = run_json("check", bundle, cwd=str(tmp_path))
    assert not [f for f in rep["findings"] if "symbolic link" in f["message"]]
    assert [b["path"].rsplit("/", 3)[-3:] for b in rep["bundles"]] == [["operators", "beta-op", "1.1.0"]]


def test_a_symlink_out_of_the_repository_is_still_reported(tmp_path):
    root = _tree(tmp_path, git=False)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.yaml").write_text("a: 1\n")
    os.symlink(str(outside / "x.yaml"), os.path.join(root, "operators", "beta-op", "1.1.0", "manifests", "x.yaml"))
    code, rep = run_json("check", "operators/beta-op/1.1.0", cwd=root)
    assert [f["rule"] for f in rep["findings"] if "symbolic link" in f["message"]] == ["yaml-limits"]


@pytest.mark.parametrize("git", [True, False], ids=["git", "plain"])
def test_pre_commit_run_on_a_correct_change_to_one_bundle_passes(tmp_path, git):
    """The hook (.pre-commit-hooks.yaml: `olm-check check` with the changed files) on a correct
    edit of the newest bundle of a two-bundle operator: its replaces names the bundle beside
    it, whose files the hook is not given."""
    root = build_tree("catalog", tmp_path / "repo")
    if git:
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "catalog")
    csv = "operators/example-operator/1.1.0/manifests/example-operator.clusterserviceversion.yaml"
    with open(os.path.join(root, csv), encoding="utf-8") as fh:
        text = fh.read()
    assert "replaces: example-operator.v1.0.0" in text
    with open(os.path.join(root, csv), "w", encoding="utf-8") as fh:
        fh.write(text.replace("\n  version: 1.1.0\n", "\n  version: 1.1.0\n  # the upgrade from 1.0.0\n", 1))
    p = run_cli("check", csv, cwd=root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 bundle(s) checked: 0 error(s)" in p.stdout and "Traceback" not in p.stderr


def test_changed_since_checks_the_changed_bundle_with_its_operator_only(tmp_path, monkeypatch):
    root = _tree(tmp_path, git=True)
    _git(root, "tag", "base")
    csv = os.path.join(root, "operators/beta-op/1.2.0/manifests/beta-op.clusterserviceversion.yaml")
    with open(csv, "a", encoding="utf-8") as fh:
        fh.write("\n")
    _git(root, "commit", "-q", "-am", "touch beta-op 1.2.0")
    code, rep = run_json("check", ".", "--changed-since", "base", cwd=root)
    assert [b["path"] for b in rep["bundles"]] == ["operators/beta-op/1.2.0"]
    res = check([os.path.join(root, "operators/beta-op/1.2.0")])
    wanted = _about(res.findings, "operators/beta-op/1.2.0")
    # pr-shape is about the change itself (here: an existing bundle modified), and yaml-lint lints only
    # the bundle a change list submits (the pipeline's yaml-lint task); the rest is the same
    got = sorted((f["rule"], f["severity"], f["path"], f["line"], f["message"]) for f in rep["findings"]
                 if f["path"].startswith("operators/beta-op/1.2.0/") and f["rule"] not in ("pr-shape", "yaml-lint"))
    assert got == wanted
    # only the touched operator was read: its bundles are the whole model
    from checker.changes import git_changes

    monkeypatch.chdir(root)
    res = check(["."], changes=git_changes(root, "base", "HEAD", worktree=True))
    assert sorted({r.operator for r in res.repo.bundle_refs}) == ["beta-op"]
    assert len(res.repo.bundle_refs) == 3


def test_benchmark_measures_a_one_bundle_pull_request_and_leaves_the_checkout_alone(tmp_path):
    import sys

    root = _tree(tmp_path, git=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout
    script = os.path.join(os.path.dirname(FIXTURES), "scripts", "benchmark.py")
    p = subprocess.run([sys.executable, script, root, "--modes", "pr", "--jobs", "1",
                        "--bundle", os.path.join(root, "operators", "beta-op", "1.2.0")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "pr     (one new bundle, operators/beta-op/1.2.0): " in p.stdout and "% of the audit's" in p.stdout, p.stdout
    assert "the pull request's report: 1 bundle(s) checked (operators/beta-op/1.2.0)" in p.stdout, p.stdout
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout == head
    assert subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout == ""


def test_a_second_tree_in_the_same_process_is_read_afresh(tmp_path, monkeypatch):
    """The library checks two trees with the same operator (a pull request's base and head,
    say): what the second run knows of the sibling bundles is what its own tree holds."""
    def tree(name: str, old_channel: str) -> str:
        root = build_tree("catalog", tmp_path / name)
        for v, ch in (("1.0.0", old_channel), ("1.1.0", "release-1")):
            p = os.path.join(root, "operators", "example-operator", v, "metadata", "annotations.yaml")
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text.replace("channels.v1: stable", f"channels.v1: {ch}"))
        return root

    def naming(root: str) -> list:
        monkeypatch.chdir(root)
        return [f.severity for f in check(["operators/example-operator/1.1.0"]).findings if f.rule == "channel-naming"]

    established, new = tree("base", "release-1"), tree("head", "stable")
    assert naming(established) == ["info"]  # 1.0.0 publishes to release-1 already
    assert naming(new) == ["warning"]  # here it does not: a new channel
