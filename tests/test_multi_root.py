"""Two catalog trees in one run: each tree's operators are checked as when the tree is checked
alone, even where both trees hold an operator of the same name (a fork beside upstream, two
checkouts). The findings of a joint run are the union of the separate runs' findings: every
command below runs the real CLI on two copies of fixtures/catalog-small, the second one
changed."""
import json
import os
import shutil
import subprocess

import pytest

from helpers import run_cli
from conftest import FIXTURES  # materialised: fixtures/files.yaml names some of catalog-small's files


def _copy(dest):
    shutil.copytree(os.path.join(FIXTURES, "catalog-small"), dest, symlinks=True)


def _change(tree):
    """What tells b/ from a/: its alpha-op's ci.yaml repeats a key and names an unknown
    update mode, its gamma-op's 4.16 catalog has a default channel that is not one, and its
    beta-op has lost its first bundle (1.1.0 replaces a CSV no longer there)."""
    with open(os.path.join(tree, "operators", "alpha-op", "ci.yaml"), "a", encoding="utf-8") as fh:
        fh.write("reviewers: [x]\nupdateGraph: bogus-mode\n")
    cat = os.path.join(tree, "catalogs", "v4.16", "gamma-op", "catalog.yaml")
    with open(cat, encoding="utf-8") as fh:
        text = fh.read()
    assert text.count("defaultChannel: stable") == 1
    with open(cat, "w", encoding="utf-8") as fh:
        fh.write(text.replace("defaultChannel: stable", "defaultChannel: nope"))
    shutil.rmtree(os.path.join(tree, "operators", "beta-op", "1.0.0"))


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    """A directory holding a/ (catalog-small as it is) and b/ (changed, ``_change``)."""
    top = tmp_path_factory.mktemp("two-trees")
    _copy(top / "a")
    _copy(top / "b")
    _change(str(top / "b"))
    return str(top)


def answer(cwd, *args, jobs=1, cache=None):
    """(findings, bundle paths) of a real run, each sorted: a finding whole, as JSON."""
    extra = ["--cache", cache] if cache else []
    p = run_cli(*args, "--format", "json", "--fail-on", "never", "--progress", "never", "--jobs", str(jobs), *extra, cwd=cwd)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    report = json.loads(p.stdout)
    return (sorted(json.dumps(f, sort_keys=True) for f in report["findings"]),
            sorted(b["path"] for b in report["bundles"]))


def union(*answers):
    return sorted(f for a in answers for f in a[0]), sorted(b for a in answers for b in a[1])


def rules_at(ans, prefix):
    return sorted((json.loads(f)["rule"], json.loads(f)["path"]) for f in ans[0] if json.loads(f)["path"].startswith(prefix))


def test_the_trees_differ(trees):
    """The second tree's own findings exist (else the joint runs below prove nothing)."""
    a = answer(trees, "audit", "a")
    b = answer(trees, "audit", "b")
    assert ("ci-config", "b/operators/alpha-op/ci.yaml") in rules_at(b, "b/")
    assert ("yaml-duplicate-key", "b/operators/alpha-op/ci.yaml") in rules_at(b, "b/")
    assert ("fbc-schema", "b/catalogs/v4.16/gamma-op/catalog.yaml") in rules_at(b, "b/")
    assert ("replaces-missing", "b/operators/beta-op/1.1.0/manifests/beta-op.clusterserviceversion.yaml") in rules_at(b, "b/")
    assert not [r for r, _ in rules_at(a, "a/") if r in ("ci-config", "fbc-schema", "internal-error")]
    assert [p.replace("a/", "b/", 1) for p in a[1] if "beta-op/1.0.0" not in p] == b[1]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("command,paths", [
    ("audit", ["a", "b"]),
    ("audit", ["b", "a"]),
    ("check", ["a/operators/alpha-op", "b/operators/alpha-op"]),
    ("check", ["a/operators/gamma-op", "b/operators/gamma-op"]),
    ("check", ["a/operators/alpha-op/0.3.0", "b/operators/alpha-op/0.3.0"]),
    ("check", ["a/operators/beta-op/1.1.0", "b/operators/beta-op/1.1.0"]),
    ("check", ["a/operators/alpha-op", "b"]),
], ids=lambda v: v if isinstance(v, str) else "+".join(v) if isinstance(v, list) else str(v))
def test_a_joint_run_is_the_union_of_the_separate_runs(trees, command, paths, jobs):
    """No operator of one tree is joined to the other tree's operator of the same name (no
    dangling-bundle from a graph of both trees' bundles, no finding of one tree's ci.yaml or
    catalogs lost, none of a bundle's findings changed by the other tree's siblings)."""
    alone = [answer(trees, command, p, jobs=jobs) for p in paths]
    assert answer(trees, command, *paths, jobs=jobs) == union(*alone)


def test_a_directory_holding_both_trees(trees):
    """The parent of both trees, checked as one path, holds two operators of each name."""
    assert answer(trees, "audit", ".", jobs=2) == union(answer(trees, "audit", "a"), answer(trees, "audit", "b"))


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_result_cache_answers_each_tree_with_its_own_results(trees, tmp_path, jobs):
    """One cache for runs of a, then of a and b together, then of b (and so on): every answer
    is the uncached one; no tree's stored results (a bundle's, an operator's) answer the
    other tree's operator of the same name."""
    cache = str(tmp_path / "cache")
    a = answer(trees, "audit", "a")
    b = answer(trees, "audit", "b")
    ab = union(a, b)
    for paths, want in [(["a"], a), (["a", "b"], ab), (["b"], b), (["b", "a"], ab), (["a", "b"], ab), (["b"], b),
                        (["a"], a)]:
        assert answer(trees, "audit", *paths, jobs=jobs, cache=cache) == want, paths
    ops = ["a/operators/alpha-op", "b/operators/alpha-op"]
    want = union(answer(trees, "check", ops[0]), answer(trees, "check", ops[1]))
    for _ in range(2):  # cold, then warm
        assert answer(trees, "check", *ops, jobs=jobs, cache=cache) == want


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_changed_since_reads_the_changed_operators_of_its_own_tree_only(tmp_path):
    """--changed-since takes its change list from the first path's git work tree: the
    operators it touches are those of that tree, not every operator of their names in another
    tree named beside it."""
    _copy(tmp_path / "a")
    _copy(tmp_path / "b")
    a = str(tmp_path / "a")
    _change(str(tmp_path / "b"))
    _git(a, "init", "-q")
    _git(a, "add", "-A")
    _git(a, "commit", "-qm", "init")
    csv = os.path.join(a, "operators", "beta-op", "1.1.0", "manifests", "beta-op.clusterserviceversion.yaml")
    with open(csv, encoding="utf-8") as fh:
        text = fh.read()
    with open(csv, "w", encoding="utf-8") as fh:
        fh.write(text.replace("  name: beta-op.v1.1.0\n", "  name: beta-op.v1.1.0\n  labels: {x: y}\n", 1))
    alone = answer(a, "check", "--changed-since", "HEAD", ".")
    assert ("pr-shape", "operators/beta-op/1.1.0/manifests/beta-op.clusterserviceversion.yaml") in rules_at(alone, "")
    # the report's paths are relative to the git work tree (a/), b's as given
    joint = answer(str(tmp_path), "check", "--changed-since", "HEAD", "a", "b")
    assert [f for f in joint[0] if not json.loads(f)["path"].startswith("b/")] == alone[0]
    assert joint[1] == alone[1] == ["operators/beta-op/1.1.0"]
    assert not rules_at(joint, "b/operators/") and not rules_at(joint, "b/catalogs/")


def test_fix_writes_in_every_tree_named(trees):
    """`olm-check fix` with two trees fixes what it fixes in each alone: the second tree's
    files are inside the checked trees, not refused as outside the first one."""
    def diff(*paths):
        p = run_cli("fix", "--diff", *paths, cwd=trees)
        assert p.returncode == 1, p.stderr
        return p.stdout

    alone = diff("a") + diff("b")
    assert "+++ b/b/deploy/catalogsource.yaml" in alone
    assert diff("a", "b") == alone


def test_one_bundle_reports_its_operators_repository_files(trees):
    """Checking one bundle reports what is wrong in its operator's ci.yaml and catalogs (they
    decide how the bundle is published), as checking the operator's directory does, and
    nothing of another operator's."""
    b = os.path.join(trees, "b")
    one = answer(b, "check", "operators/alpha-op/0.3.0")[0]
    whole = answer(b, "check", "operators/alpha-op")[0]
    ci_one = [f for f in one if "ci.yaml" in json.loads(f)["path"]]
    ci_whole = [f for f in whole if "ci.yaml" in json.loads(f)["path"]]
    assert {json.loads(f)["rule"] for f in ci_one} == {"yaml-duplicate-key", "ci-config"}
    assert ci_one == ci_whole
    other = answer(b, "check", "operators/gamma-op/2.1.0")[0]
    assert not [f for f in other if "alpha-op" in json.loads(f)["path"]]
    assert any(json.loads(f)["rule"] == "fbc-schema" for f in other)  # gamma-op's catalog of 4.16
