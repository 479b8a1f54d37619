"""yaml-lint: yamllint with the catalog pipeline's configuration, on the bundles a run submits."""
import os
import shutil
import subprocess

import pytest

from conftest import FIXTURES
from helpers import run_json


@pytest.fixture
def tree(tmp_path):
    dest = tmp_path / "catalog"
    shutil.copytree(os.path.join(FIXTURES, "catalog-small"), dest, symlinks=True)
    (dest / "config.yaml").write_text("organization: community-operators\n")
    return dest


def _lint(data):
    return [f for f in data["findings"] if f["rule"] == "yaml-lint"]


def _a_bundle(tree):
    for dp, dn, fn in sorted(os.walk(tree / "operators")):
        if "metadata" in dn and "manifests" in dn:
            return dp
    raise AssertionError("no bundle")


def _git(tree, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=str(tree), check=True,
                   capture_output=True)


def test_the_bundle_a_change_adds_is_linted_released_bundles_are_not_unless_asked(tree):
    b = _a_bundle(tree)
    rel = os.path.relpath(b, tree)
    _git(tree, "init", "-q", "-b", "main")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-qm", "base")
    with open(os.path.join(b, "metadata", "annotations.yaml"), "a") as fh:
        fh.write("# trailing   \n")
    _git(tree, "commit", "-qam", "change")
    # a change list (a pull request): the bundle it changes is linted
    _, data = run_json("check", ".", "--changed-since", "HEAD~1", cwd=str(tree))
    errs = [f for f in _lint(data) if f["severity"] == "error"]
    assert errs and all("(trailing-spaces)" in f["message"] for f in errs), errs
    assert errs[0]["path"] == f"{rel}/metadata/annotations.yaml" and errs[0]["gate"]["id"] == "yaml-lint"
    # no change list: released bundles are not linted again by the pipeline, however named
    for args in (("audit", "."), ("check", rel), ("check", os.path.dirname(rel))):
        _, data = run_json(*args, cwd=str(tree))
        assert not _lint(data), args
    (tree / ".olm-check.yaml").write_text("options:\n  yaml-lint:\n    all_bundles: true\n")
    _, data = run_json("audit", ".", cwd=str(tree))
    assert any("(trailing-spaces)" in f["message"] and f["severity"] == "error" for f in _lint(data))


def test_bad_input_never_crashes_and_large_files_are_skipped(tree):
    b = _a_bundle(tree)
    rel = os.path.relpath(b, tree)
    with open(os.path.join(b, "manifests", "latin1.yaml"), "wb") as fh:
        fh.write(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n")
    with open(os.path.join(b, "manifests", "bin.yaml"), "wb") as fh:
        fh.write(b"\x00\x01\x02binary\xff\xfe")
    with open(os.path.join(b, "manifests", "big.yaml"), "w") as fh:
        fh.write("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n")
        fh.write("".join(f"  k{i}: '{'x' * 90}'\n" for i in range(25000)))
    (tree / ".olm-check.yaml").write_text("options:\n  yaml-lint:\n    all_bundles: true\n")
    _, data = run_json("check", rel, "--severity", "info", cwd=str(tree))
    assert not [f for f in data["findings"] if f["rule"] == "internal-error"]
    skipped = [f for f in _lint(data) if f["path"].endswith("big.yaml")]
    assert len(skipped) == 1 and "not linted" in skipped[0]["message"] and skipped[0]["severity"] == "warning"
    assert not [f for f in _lint(data) if f["path"].endswith(("latin1.yaml", "bin.yaml"))]
