"""Baseline states (checker/baseline.py): every finding of a change is new, unchanged or
updated against the base, and only new and updated findings fail the run. Real git
repositories in a temporary directory, the CLI as users run it, and the Action against the
fake GitHub."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import run_cli
from fakegithub.plugin import fake_github_fixture  # noqa: F401  (fixture fake_github)
from test_action_e2e import FIX, git, run_action, sync_pull

from checker.baseline import NEW, UNCHANGED, UPDATED, classify, key
from checker.finding import Finding

OP = "operators/example-operator"
OLD_CSV = f"{OP}/1.0.0/manifests/example-operator.clusterserviceversion.yaml"
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "report.schema.json").read_text())


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def _skip_range(path: Path, value: str) -> None:
    _edit(path, "  annotations:\n", f"  annotations:\n    olm.skipRange: '{value}'\n")


def _base_repo(tmp_path: Path) -> Path:
    """The fixture catalog with an error in 1.0.0 (a skipRange OLM cannot parse), committed
    on main, and a branch to change it on."""
    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    _skip_range(ws / OLD_CSV, "<v1.0.0")
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    git(ws, "checkout", "-q", "-b", "feature")
    return ws


def _next_bundle(ws: Path, version: str = "1.1.0", skip: str = "<v1.1.0", extra=None) -> str:
    """1.1.0: 1.0.0 copied, renamed, replacing it, with the same malformed skipRange."""
    new = ws / OP / version
    shutil.copytree(ws / OP / "1.0.0", new)
    csv = new / "manifests" / "example-operator.clusterserviceversion.yaml"
    text = csv.read_text().replace("example-operator.v1.0.0", f"example-operator.v{version}", 1)
    text = text.replace("  version: 1.0.0\n", f"  version: {version}\n  replaces: example-operator.v1.0.0\n", 1)
    text = text.replace("'<v1.0.0'", f"'{skip}'", 1)
    csv.write_text(text)
    if extra is not None:
        extra(csv)
    return f"{OP}/{version}"


def _commit(ws: Path, message: str = "change") -> str:
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", message)
    return git(ws, "rev-parse", "HEAD")


def _json(*args, cwd) -> tuple:
    p = run_cli("check", *args, "--format", "json", "--progress", "never", cwd=str(cwd))
    assert p.returncode in (0, 1), p.stderr
    assert "Traceback" not in p.stderr
    rep = json.loads(p.stdout)
    from jsonschema import Draft202012Validator

    errors = [e.message for e in Draft202012Validator(SCHEMA).iter_errors(rep)]
    assert errors == [], errors
    return p.returncode, rep


def _states(rep) -> list:
    return sorted((f["baseline_state"], f["rule"]) for f in rep["findings"] if f["severity"] != "info")


# --- the matching itself -------------------------------------------------------------------

def _f(rule, path, message):
    return Finding(rule, message, path, severity="error")


def test_versions_and_bundle_paths_are_normalised():
    a = key("skip-range", "operators/p/1.19.1/manifests/p.v1.19.1.clusterserviceversion.yaml",
            "olm.skipRange '<v1.19.1' is not a range (see operators/p/1.19.1)", ("operators/p/1.19.1",))
    b = key("skip-range", "operators/p/1.19.0/manifests/p.v1.19.0.clusterserviceversion.yaml",
            "olm.skipRange '<v1.19.0' is not a range (see operators/p/1.19.0)", ("operators/p/1.19.0",))
    assert a == b
    # prereleases and build metadata are versions too; an OpenShift release (two parts) is not
    assert key("r", "x", "1.30.0-nightly-2025-11-27 replaces 1.29.0+b1")[2] == "<version> replaces <version>"
    assert key("r", "x", "published to 4.16")[2] == "published to 4.16"
    assert key("r", "x", "first at line 12")[2] == key("r", "x", "first at line 40")[2]
    assert key("r", "x", "a") != key("q", "x", "a") and key("r", "x", "a") != key("r", "y", "a")


def test_classify_unchanged_updated_new_and_counts():
    base = [_f("skip-range", "b/c.yaml", "olm.skipRange '<v1.0.0' bad"),
            _f("dup", "b/c.yaml", "key 'x' repeated"),
            _f("dup", "b/c.yaml", "key 'z' repeated"),
            _f("gone", "b/c.yaml", "fixed by the change")]
    head = [_f("dup", "h/c.yaml", "key 'y' repeated"),           # the same problem, other values
            _f("skip-range", "h/c.yaml", "olm.skipRange '<v1.1.0' bad"),
            _f("skip-range", "h/c.yaml", "olm.skipRange '<v1.1.0' bad"),  # a second one is new
            _f("dup", "h/c.yaml", "key 'x' repeated")]            # exact: unchanged, before any updated
    counts, absent = classify(head, base, lambda f: ("h",), lambda f: ("b",))
    assert [f.baseline_state for f in head] == [UPDATED, UNCHANGED, NEW, UNCHANGED]
    assert counts == {NEW: 1, UNCHANGED: 2, UPDATED: 1} and absent == 1
    # a directory is replaced as a whole path only ('b' of 'bad' stays)
    assert key("r", "b/c.yaml", "bad b", ("b",)) == ("r", "<bundle>/c.yaml", "bad <bundle>")


# --- the CLI ---------------------------------------------------------------------------------

def test_a_new_bundle_is_compared_with_the_one_it_replaces(tmp_path):
    ws = _base_repo(tmp_path)
    new = _next_bundle(ws)
    _commit(ws)
    rc, rep = _json("--changed-since", "main", ".", cwd=ws)
    assert rc == 0, rep["findings"]  # the malformed skipRange was in 1.0.0: inherited, not failing
    # (the pipelines' yaml-lint judges the submitted bundle only: its findings there are new)
    assert [s for s in _states(rep) if s[1] != "yaml-lint"] == [(UNCHANGED, "skip-range")]
    assert rep["baseline"]["previous"] == {new: f"{OP}/1.0.0"}
    assert rep["baseline"]["ref"] == git(ws, "rev-parse", "main")
    assert rep["baseline"]["new"] + rep["baseline"]["updated"] + rep["baseline"]["unchanged"] == len(rep["findings"])
    # text and SARIF say it too
    p = run_cli("check", "--changed-since", "main", ".", cwd=str(ws))
    assert p.returncode == 0 and "skip-range" in p.stdout and "(unchanged)" in p.stdout
    assert any("new, 0 updated, " in line and "unchanged" in line for line in p.stdout.splitlines())
    s = json.loads(run_cli("check", "--changed-since", "main", ".", "--format", "sarif", cwd=str(ws)).stdout)
    assert {r["ruleId"]: r["baselineState"] for r in s["runs"][0]["results"]}["skip-range"] == UNCHANGED
    # --fail-on-unchanged: every finding fails the run again
    p = run_cli("check", "--changed-since", "main", ".", "--fail-on-unchanged", cwd=str(ws))
    assert p.returncode == 1, p.stdout


def test_a_new_problem_is_new_and_fails(tmp_path):
    ws = _base_repo(tmp_path)
    _next_bundle(ws, extra=lambda csv: _edit(csv, "    capabilities: Basic Install\n",
                                             "    capabilities: Basic Install\n    capabilities: Seamless Upgrades\n"))
    _commit(ws)
    rc, rep = _json("--changed-since", "main", ".", cwd=ws)
    assert rc == 1
    states = _states(rep)
    assert (UNCHANGED, "skip-range") in states and (NEW, "yaml-duplicate-key") in states, states


def test_the_next_lower_version_without_replaces(tmp_path):
    """No spec.replaces (semver mode): the next lower bundle directory; 0.9.0 and 2.0.0 are not it."""
    ws = _base_repo(tmp_path)
    shutil.copytree(ws / OP / "1.0.0", ws / OP / "0.9.0")
    _commit(ws, "more bundles")
    git(ws, "checkout", "-q", "-B", "main")
    git(ws, "checkout", "-q", "-b", "next")
    new = _next_bundle(ws, "1.2.0", extra=lambda csv: _edit(csv, "  replaces: example-operator.v1.0.0\n", ""))
    _commit(ws)
    rc, rep = _json("--changed-since", "main", ".", cwd=ws)
    assert rep["baseline"]["previous"][new] == f"{OP}/1.0.0"
    assert rc == 0 and (UNCHANGED, "skip-range") in _states(rep)


def test_an_edited_bundle_is_compared_with_itself(tmp_path):
    ws = _base_repo(tmp_path)
    _edit(ws / OLD_CSV, "'<v1.0.0'", "'<=v1.0.0'")  # still malformed, differently: updated
    _commit(ws)
    rc, rep = _json("--changed-since", "main", ".", cwd=ws)
    assert rep["baseline"]["previous"] == {f"{OP}/1.0.0": f"{OP}/1.0.0"}
    assert (UPDATED, "skip-range") in _states(rep) and rc == 1


def test_a_renamed_bundle_is_compared_with_its_old_directory(tmp_path):
    ws = _base_repo(tmp_path)
    git(ws, "mv", f"{OP}/1.0.0", f"{OP}/1.0.1")
    _edit(ws / OP / "1.0.1" / "manifests" / "example-operator.clusterserviceversion.yaml",
          "    description: Manages example widgets.\n", "    description: Manages example widgets well.\n")
    _commit(ws)
    rc, rep = _json("--changed-since", "main", ".", cwd=ws)
    assert rep["baseline"]["previous"] == {f"{OP}/1.0.1": f"{OP}/1.0.0"}
    # the inherited skipRange is unchanged; what the rename itself breaks is new (1.0.1 holds
    # version 1.0.0; a released bundle is renamed)
    states = _states(rep)
    assert (UNCHANGED, "skip-range") in states and (NEW, "csv-version-directory") in states and rc == 1, states


def test_a_new_operator_has_no_previous_bundle(tmp_path):
    ws = _base_repo(tmp_path)
    shutil.copytree(ws / OP, ws / "operators" / "other-operator")
    _commit(ws)
    rc, rep = _json("--changed-since", "main", "operators/other-operator", cwd=ws)
    assert rep["baseline"]["previous"] == {"operators/other-operator/1.0.0": None}
    assert {f["baseline_state"] for f in rep["findings"]} == {NEW} and rc == 1


def test_baseline_ref_for_any_run_and_a_bad_ref(tmp_path):
    ws = _base_repo(tmp_path)
    _next_bundle(ws)
    _commit(ws)
    rc, rep = _json("--baseline", "main", ".", cwd=ws)  # the whole tree: 1.0.0 against itself, 1.1.0 against 1.0.0
    assert rc == 0 and {f["baseline_state"] for f in rep["findings"]} == {UNCHANGED}, _states(rep)
    p = run_cli("check", "--baseline", "no-such-ref", ".", cwd=str(ws))
    assert p.returncode == 2 and "--baseline no-such-ref" in p.stderr and "Traceback" not in p.stderr
    plain = tmp_path / "plain"  # not a git work tree
    shutil.copytree(FIX / "catalog-base", plain)
    p = run_cli("check", "--baseline", "main", ".", cwd=str(plain))
    assert p.returncode == 2 and "--baseline main" in p.stderr and "Traceback" not in p.stderr, p.stderr


# --- the Action ------------------------------------------------------------------------------

@pytest.mark.parametrize("fail_on_unchanged,rc,conclusion", [("false", 0, "neutral"), ("true", 1, "failure")])
def test_the_action_fails_only_on_what_the_pull_request_brings(fake_github, tmp_path, fail_on_unchanged, rc,
                                                               conclusion):
    fake = fake_github
    ws = _base_repo(tmp_path)
    base = git(ws, "rev-parse", "main")
    _next_bundle(ws)
    head = _commit(ws)
    sync_pull(fake, ws, base, head)
    res = run_action(fake, tmp_path, ws, "run", inputs={"INPUT_FAIL_ON_UNCHANGED": fail_on_unchanged})
    assert res["rc"] == rc, res["stderr"]
    assert fake.violations == []
    assert {f["baseline_state"] for f in res["report"]["findings"]} == {UNCHANGED}
    assert fake.check_runs_for(head, "olm-check")[0].conclusion == conclusion


# --- what the pull request's bytes decide (issue 35) -----------------------------------------

CRD = "manifests/example.com_widgets.yaml"


def _lint_base(tmp_path: Path) -> Path:
    """The base with yamllint problems in released 1.0.0: trailing spaces in its CRD and CSV."""
    ws = tmp_path / "ws"
    shutil.copytree(FIX / "catalog-base", ws)
    _skip_range(ws / OLD_CSV, "<v1.0.0")
    _edit(ws / OP / "1.0.0" / CRD, "\n", "   \n")
    _edit(ws / OLD_CSV, "    capabilities: Basic Install\n", "    capabilities: Basic Install  \n")
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "base")
    git(ws, "checkout", "-q", "-b", "feature")
    return ws


def _lint_states(rep) -> list:
    return sorted((f["baseline_state"], f["path"].rsplit("/", 1)[-1], f["line"]) for f in rep["findings"]
                  if f["rule"] == "yaml-lint" and "trailing" in f["message"])


def _line_of(path: Path, text: str) -> int:
    return path.read_text().split("\n").index(text) + 1


def _action(fake, tmp_path, ws, name="run", **kw):
    """The Action on the branch's pull request, with yaml-lint on (run_action turns it off
    without a configuration: an empty one, never committed)."""
    (ws / ".olm-check.yaml").write_text("{}\n")
    base = git(ws, "rev-parse", "main")
    head = git(ws, "rev-parse", "HEAD")
    sync_pull(fake, ws, base, head)
    res = run_action(fake, tmp_path, ws, name, **kw)
    assert res["rc"] in (0, 1), res["stderr"]
    assert "Traceback" not in res["stderr"] and fake.violations == []
    return res


def test_a_bundle_copied_from_the_previous_one_brings_no_lint_finding(fake_github, tmp_path):
    """yaml-lint runs on the submitted bundle only: its findings are compared with yamllint's
    on the previous bundle's files. The copied CRD is byte-identical (a copy: nothing new);
    the CSV is edited, and only the trailing spaces the pull request wrote are new."""
    ws = _lint_base(tmp_path)
    new = _next_bundle(ws, extra=lambda csv: _edit(csv, "  version: 1.1.0\n", "  version: 1.1.0 \n"))
    _commit(ws)
    at = _line_of(ws / new / "manifests" / "example-operator.clusterserviceversion.yaml", "  version: 1.1.0 ")
    res = _action(fake_github, tmp_path, ws)
    states = _lint_states(res["report"])
    assert [s for s in states if s[0] != UNCHANGED] == [(NEW, "example-operator.clusterserviceversion.yaml", at)], states
    assert (UNCHANGED, "example.com_widgets.yaml", 1) in states and len(states) == 3
    new_findings = [f for f in res["report"]["findings"] if f["baseline_state"] != UNCHANGED]
    assert [(f["rule"], f["line"]) for f in new_findings] == [("yaml-lint", at)], new_findings
    assert res["rc"] == 1  # the trailing spaces the pull request wrote fail it, as the pipeline's yaml-lint does
    assert res["report"]["baseline"]["previous"] == {new: f"{OP}/1.0.0"}


def test_a_renamed_bundle_brings_no_finding_on_its_identical_files(fake_github, tmp_path):
    """git mv 1.0.0 1.0.1 with the version bumped (the shape of a merged community PR): the
    pipeline's detect-changes reads new names only and sees one added bundle, so no pr-shape
    error; the renamed CRD is byte-identical and the CSV's inherited problems are unchanged."""
    ws = _lint_base(tmp_path)
    git(ws, "mv", f"{OP}/1.0.0", f"{OP}/1.0.1")
    csv = ws / OP / "1.0.1" / "manifests" / "example-operator.clusterserviceversion.yaml"
    _edit(csv, "example-operator.v1.0.0", "example-operator.v1.0.1")
    _edit(csv, "  version: 1.0.0\n", "  version: 1.0.1\n")
    _commit(ws)
    assert "R100" in git(ws, "diff", "--name-status", "-M", "main...HEAD")  # the CRD: a pure rename
    res = _action(fake_github, tmp_path, ws)
    findings = res["report"]["findings"]
    assert not [f for f in findings if f["rule"] == "pr-shape"], findings
    assert res["rc"] == 0 and {f["baseline_state"] for f in findings} == {UNCHANGED}, \
        [(f["baseline_state"], f["rule"], f["path"]) for f in findings]
    assert len(_lint_states(res["report"])) == 2 and res["report"]["baseline"]["new"] == 0


def test_an_edit_of_a_released_bundle_brings_only_its_own_lint_finding(fake_github, tmp_path):
    ws = _lint_base(tmp_path)
    crd = ws / OP / "1.0.0" / CRD
    lines = crd.read_text().split("\n")
    lines.insert(3, "# a comment with trailing spaces   ")
    crd.write_text("\n".join(lines))
    _commit(ws)
    res = _action(fake_github, tmp_path, ws)
    states = _lint_states(res["report"])
    assert [s for s in states if s[0] != UNCHANGED] == [(NEW, "example.com_widgets.yaml", 4)], states
    assert (UNCHANGED, "example.com_widgets.yaml", 1) in states and len(states) >= 3
