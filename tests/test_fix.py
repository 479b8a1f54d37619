"""`olm-check fix` end to end (issue 19 item 4): on a copy of every rule fixture whose findings
carry a fix, `fix` (a subprocess, as users run it) makes `check` stop reporting them, changes
only the fixed lines (every other byte stays), and a second `fix` changes nothing; `--diff`
writes nothing; annotations.yaml and bundle.Dockerfile stay in agreement; files outside the
tree are never written."""
import difflib
import json
import os
import shutil

import pytest
import yaml

from checker.api import check
from conftest import FIXTURES
from helpers import run_cli
from trees import GOOD

RULE_DIR = os.path.join(FIXTURES, "rules")


def _cases():
    out = []
    for rid in sorted(os.listdir(RULE_DIR)):
        for case in sorted(os.listdir(os.path.join(RULE_DIR, rid))):
            if not case.startswith("bad"):
                continue
            if os.path.isfile(os.path.join(RULE_DIR, rid, case, "expect.yaml")):
                with open(os.path.join(RULE_DIR, rid, case, "expect.yaml")) as fh:
                    exp = yaml.safe_load(fh) or {}
                if exp.get("changes") is not None or exp.get("ocp"):
                    continue  # a pull request's change list / a --ocp target: not a plain tree to fix
            out.append((rid, case))
    return out


def _snapshot(root: str) -> dict:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def _findings(root: str, exp: dict, monkeypatch):
    monkeypatch.chdir(root)
    return check([exp.get("check", ".")], profile=exp.get("profile")).findings


def _has_fix(rid: str, case: str) -> bool:
    """Whether checking the fixture in place (read only) gives a finding with a fix."""
    src = os.path.join(RULE_DIR, rid, case)
    exp = {}
    if os.path.isfile(os.path.join(src, "expect.yaml")):
        with open(os.path.join(src, "expect.yaml")) as fh:
            exp = yaml.safe_load(fh) or {}
    res = check([os.path.join(src, exp.get("check", "."))], profile=exp.get("profile"))
    return any(f.fix is not None for f in res.findings)


# only the fixtures whose findings carry a fix (decided at collection, so no case is skipped)
FIXABLE = [(rid, case) for rid, case in _cases() if _has_fix(rid, case)]


def test_many_fixtures_have_fixes():
    assert len(FIXABLE) >= 20, FIXABLE


@pytest.mark.parametrize("rid,case", FIXABLE)
def test_fix_on_every_fixture_with_a_fix(rid, case, tmp_path, monkeypatch):
    src = os.path.join(RULE_DIR, rid, case)
    root = str(tmp_path / "case")
    shutil.copytree(src, root, symlinks=True)
    exp = {}
    if os.path.isfile(os.path.join(root, "expect.yaml")):
        with open(os.path.join(root, "expect.yaml")) as fh:
            exp = yaml.safe_load(fh) or {}
    before = _findings(root, exp, monkeypatch)
    fixed = [f for f in before if f.fix is not None]
    assert fixed, "the fixture had a fix when collected"
    files_before = _snapshot(root)
    args = ["fix", exp.get("check", ".")] + (["--profile", exp["profile"]] if exp.get("profile") else [])
    p = run_cli(*args, cwd=root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "fixed " in p.stdout
    after = _findings(root, exp, monkeypatch)
    assert [f for f in after if f.fix is not None] == [], "a fix is left"
    gone = {(f.rule, f.path, f.message) for f in fixed}
    assert not [f for f in after if (f.rule, f.path, f.message) in gone], "a fixed finding is still reported"
    # only the fixed lines changed
    files_after = _snapshot(root)
    assert set(files_after) == set(files_before)
    fix_lines = {}
    for f in fixed:
        fix_lines.setdefault(f.path, set()).add(f.fix.line)
    for rel, old in files_before.items():
        new = files_after[rel]
        if old == new:
            continue
        assert rel in fix_lines, f"{rel} changed but had no fix"
        a, b = old.decode().split("\n"), new.decode().split("\n")
        for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag != "equal":
                touched = set(range(i1 + 1, i2 + 1)) or {i1 + 1}
                assert touched <= fix_lines[rel] | {i1}, (rel, tag, i1, i2, fix_lines[rel])
    # a second fix is a no-op
    p = run_cli(*args, cwd=root)
    assert p.returncode == 0 and "nothing to fix" in p.stdout, p.stdout
    assert _snapshot(root) == files_after


def test_fix_diff_writes_nothing(tmp_path):
    root = str(tmp_path / "case")
    shutil.copytree(os.path.join(RULE_DIR, "feature-annotations", "bad"), root)
    before = _snapshot(root)
    p = run_cli("fix", "--diff", cwd=root)
    assert p.returncode == 1, p.stderr
    assert p.stdout.startswith("--- a/manifests/example-operator.clusterserviceversion.yaml\n+++ b/manifests/")
    assert '+    features.operators.openshift.io/disconnected: "true"\n' in p.stdout
    assert "would fix 3 finding(s) in 1 file(s)" in p.stderr
    assert _snapshot(root) == before
    run_cli("fix", cwd=root)
    p = run_cli("fix", "--diff", cwd=root)
    assert p.returncode == 0 and p.stdout == "" and "nothing to fix" in p.stderr


def test_annotations_and_dockerfile_stay_in_agreement(tmp_path):
    root = tmp_path / "bundle"
    shutil.copytree(GOOD, root)
    ann, df = root / "metadata" / "annotations.yaml", root / "bundle.Dockerfile"
    ann.write_text(ann.read_text().replace('com.redhat.openshift.versions: "v4.14"', 'com.redhat.openshift.versions: "4.14"'))
    df.write_text(df.read_text().replace('com.redhat.openshift.versions="v4.14"', 'com.redhat.openshift.versions="4.14"'))
    p = run_cli("fix", ".", cwd=root)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "metadata/annotations.yaml:8: fixed ocp-versions-style: write v4.14",
        "bundle.Dockerfile:9: LABEL com.redhat.openshift.versions changed alike (agrees with metadata/annotations.yaml)",
        "fixed 1 finding(s) in 2 file(s); `olm-check check` shows what remains"]
    assert 'com.redhat.openshift.versions: "v4.14"' in ann.read_text()
    assert 'LABEL com.redhat.openshift.versions="v4.14"\n' in df.read_text()
    assert df.read_text() == open(os.path.join(GOOD, "bundle.Dockerfile")).read()
    assert ann.read_text() == open(os.path.join(GOOD, "metadata", "annotations.yaml")).read()
    p = run_cli("check", ".", "--format", "json", cwd=root)
    assert json.loads(p.stdout)["findings"] == []


def test_fix_never_writes_outside_the_tree(tmp_path):
    outside = tmp_path / "outside"
    shutil.copytree(os.path.join(RULE_DIR, "feature-annotations", "bad"), outside)
    tree = tmp_path / "tree"
    shutil.copytree(os.path.join(RULE_DIR, "feature-annotations", "bad"), tree)
    csv = "manifests/example-operator.clusterserviceversion.yaml"
    os.remove(tree / csv)
    os.symlink(outside / csv, tree / csv)  # a symlink out of the tree: olm-check does not read it, nor write it
    before = (outside / csv).read_bytes()
    p = run_cli("fix", ".", cwd=tree)
    assert p.returncode == 0, p.stderr
    assert (outside / csv).read_bytes() == before
    assert os.path.islink(tree / csv)


def test_fix_of_nothing_to_check_is_exit_2(tmp_path):
    p = run_cli("fix", ".", cwd=tmp_path)
    assert p.returncode == 2 and "nothing to check" in p.stderr
