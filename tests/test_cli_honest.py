"""The command line's honest exits and choosing what to see (issue 19, items 2 and 3), end to
end: ``python -m checker`` in a subprocess on real trees (fixtures/trees/, tests/trees.py).

* nothing to check (an empty directory, unrelated YAML, a mistyped path) is exit 2 with one
  line on stderr, unless --allow-empty; unknown --ocp releases are exit 2 with the known range;
  a closed stdout ends quietly (141); --changed-since outside git is one line; a subcommand's
  usage error shows that subcommand's usage, with did-you-mean.
* --select/--ignore decide the reported rules and the exit code; --severity only what text
  shows (JSON keeps everything); --statistics, --quiet; `olm-check rules RULE-ID`.
"""
import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, run_cli
from trees import build_tree


@pytest.fixture
def findings_tree(tmp_path):
    return build_tree("findings", tmp_path / "findings")


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    return lines[0]


# -- item 3: honest exits -------------------------------------------------------------------

def test_empty_directory_is_exit_2_unless_allow_empty(tmp_path):
    (tmp_path / "empty").mkdir()
    p = run_cli("check", "empty", cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == ""
    assert "nothing to check in empty" in one_line(p.stderr)
    assert "--allow-empty" in p.stderr
    p = run_cli("check", "empty", "--allow-empty", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith("0 bundle(s) checked: 0 error(s), 0 warning(s), 0 info")


def test_unrelated_yaml_is_nothing_to_check(tmp_path):
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "app.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n")
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    for fmt in ("text", "json"):
        p = run_cli("check", ".", "--format", fmt, cwd=tmp_path)
        assert p.returncode == 2 and p.stdout == "", (fmt, p.stdout)
        assert "nothing to check" in one_line(p.stderr)


def test_mistyped_path_checks_nothing(findings_tree):
    # an existing directory of the repository that holds no bundle (the path meant was closed/)
    os.makedirs(os.path.join(findings_tree, "docs"))
    with open(os.path.join(findings_tree, "docs", "index.yaml"), "w") as fh:
        fh.write("title: docs\n")
    p = run_cli("check", "docs", cwd=findings_tree)
    assert p.returncode == 2 and "nothing to check in docs" in one_line(p.stderr)
    p = run_cli("check", "closd", cwd=findings_tree)
    assert p.returncode == 2 and "closd: no such file or directory" in one_line(p.stderr)


def test_unknown_ocp_release_is_exit_2_with_the_known_range(findings_tree):
    p = run_cli("check", ".", "--ocp", "5.99", cwd=findings_tree)
    assert p.returncode == 2 and p.stdout == ""
    line = one_line(p.stderr)
    assert "--ocp 5.99: not an OpenShift release olm-check knows" in line and "it knows 4.1-5.0" in line
    p = run_cli("check", ".", "--ocp", "4.16,4.99", cwd=findings_tree)
    assert p.returncode == 2 and "did you mean '4.9' or '4.19'?" in one_line(p.stderr)
    p = run_cli("check", ".", "--ocp", "4.16", "--format", "json", cwd=findings_tree)
    assert p.returncode in (0, 1), p.stderr


def test_ocp_release_added_by_the_config_is_known(findings_tree):
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write('ocp_releases:\n  - {ocp: "4.40", kube: "1.53", ga: false}\n')
    p = run_cli("check", ".", "--ocp", "4.40", "--format", "json", cwd=findings_tree)
    assert p.returncode in (0, 1), p.stderr
    assert all(b["ocp_versions"] == ["4.40"] for b in json.loads(p.stdout)["bundles"])


def _reader_gone(*args, cwd=None):
    """Run with stdout a pipe whose reader is already gone (``olm-check ... | true``): the
    first write meets the closed pipe. Returns (exit code, stderr)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("GITHUB_ACTIONS", None)
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd, env=env, stdout=w,
                              stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(w)
    return proc.returncode, proc.stderr.decode()


@pytest.mark.parametrize("args", [("rules",), ("rules", "--format", "markdown"), ("rules", "yaml-syntax")])
def test_broken_pipe_ends_quietly(args):
    code, err = _reader_gone(*args)
    assert (code, err) == (141, "")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_broken_pipe_in_a_check_report(findings_tree, fmt):
    code, err = _reader_gone("check", ".", "--format", fmt, "--severity", "info", cwd=findings_tree)
    assert (code, err) == (141, "")


def test_rules_into_head_ends_quietly():
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run(["sh", "-c", f"'{sys.executable}' -m checker rules --format markdown | head -1"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.stdout == "# olm-check rules\n" and p.stderr == ""


def test_changed_since_outside_git_is_one_line(findings_tree):
    p = run_cli("check", ".", "--changed-since", "main", cwd=findings_tree)
    assert p.returncode == 2
    assert one_line(p.stderr) == "olm-check: --changed-since main: . is not inside a git work tree"


def test_changed_since_unknown_ref_is_one_line(findings_tree):
    def git(*a):
        subprocess.run(["git", *a], cwd=findings_tree, check=True, capture_output=True)
    git("init", "-q")
    git("-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x")
    p = run_cli("check", ".", "--changed-since", "no-such-branch", cwd=findings_tree)
    assert p.returncode == 2
    assert one_line(p.stderr).startswith("olm-check: --changed-since no-such-branch: ")
    assert "usage" not in p.stderr.lower()


def test_subcommand_usage_errors_show_that_subcommands_usage(findings_tree):
    p = run_cli("check", ".", "--profle", "certified", cwd=findings_tree)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("usage: olm-check check ")
    assert "unrecognized arguments: --profle (did you mean '--profile'?)" in p.stderr
    p = run_cli("check", ".", "--profile", "comunity", cwd=findings_tree)
    assert p.returncode == 2 and p.stderr.startswith("usage: olm-check check ")
    assert "(did you mean 'community'?)" in p.stderr
    p = run_cli("rules", "--formt", "json")
    assert p.returncode == 2 and p.stderr.startswith("usage: olm-check rules ")
    p = run_cli("audit", "--fail-on", "warn")
    assert p.returncode == 2 and p.stderr.startswith("usage: olm-check audit ")
    assert "(did you mean 'warning'?)" in p.stderr
    p = run_cli("chek", ".")
    assert p.returncode == 2 and "(did you mean 'check'?)" in p.stderr


def test_unknown_rule_id_in_config_gets_did_you_mean(findings_tree):
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write("rules:\n  yaml-duplicate-keys: warning\n")
    p = run_cli("check", ".", cwd=findings_tree)
    assert p.returncode == 2
    assert "unknown rule id 'yaml-duplicate-keys' (did you mean 'yaml-duplicate-key'" in one_line(p.stderr)
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write("profile: certifed\n")
    p = run_cli("check", ".", cwd=findings_tree)
    assert p.returncode == 2 and "(did you mean 'certified'?)" in one_line(p.stderr)


# -- item 2: choosing what to see -----------------------------------------------------------

def rules_of(stdout: str) -> list:
    return [l.split(" ")[2] for l in stdout.splitlines() if l.split(":")[0].endswith((".yaml", "Dockerfile"))]


def test_text_hides_info_by_default_and_says_so(findings_tree):
    p = run_cli("check", ".", cwd=findings_tree)
    assert p.returncode == 1
    assert "ocp-versions-closed-range" not in p.stdout
    lines = p.stdout.rstrip("\n").split("\n")
    assert lines[-2] == "2 bundle(s) checked: 1 error(s), 2 warning(s), 1 info"
    assert lines[-1] == "not shown: 1 info (--severity info shows them)"
    p = run_cli("check", ".", "--severity", "info", cwd=findings_tree)
    assert "ocp-versions-closed-range" in p.stdout and "not shown" not in p.stdout


def test_json_and_sarif_keep_every_finding(findings_tree):
    p = run_cli("check", ".", "--format", "json", "--severity", "error", cwd=findings_tree)
    data = json.loads(p.stdout)
    assert sorted(f["severity"] for f in data["findings"]) == ["error", "info", "warning", "warning"]
    p = run_cli("check", ".", "--format", "sarif", cwd=findings_tree)
    assert len(json.loads(p.stdout)["runs"][0]["results"]) == 4


def test_severity_never_changes_the_exit_code(findings_tree):
    p = run_cli("check", ".", "--severity", "error", "--fail-on", "warning", "--output-format", "concise", cwd=findings_tree)
    assert p.returncode == 1
    assert rules_of(p.stdout) == ["yaml-duplicate-key"]
    assert p.stdout.rstrip().endswith("not shown: 2 warning(s), 1 info (--severity info shows them)")
    p = run_cli("check", ".", "--ignore", "yaml-duplicate-key", "--fail-on", "info", cwd=findings_tree)
    assert p.returncode == 1  # the hidden info still fails --fail-on info
    assert "not shown: 1 info" in p.stdout


def test_select_and_ignore_decide_the_report_and_the_exit_code(findings_tree):
    p = run_cli("check", ".", "--format", "json", "--select", "ocp-", cwd=findings_tree)
    data = json.loads(p.stdout)
    assert {f["rule"] for f in data["findings"]} == {"ocp-versions-closed-range", "ocp-versions-missing"}
    assert data["summary"] == {"bundles": 2, "errors": 0, "warnings": 1, "info": 1}
    assert p.returncode == 0  # the error (yaml-duplicate-key) is not selected
    p = run_cli("check", ".", "--ignore", "yaml-duplicate-key", cwd=findings_tree)
    assert p.returncode == 0 and "yaml-duplicate-key" not in p.stdout
    p = run_cli("check", ".", "--select", "yaml-duplicate-key,ocp-versions-missing", "--ignore", "ocp", "--output-format", "concise", cwd=findings_tree)
    assert p.returncode == 1 and set(rules_of(p.stdout)) == {"yaml-duplicate-key"}
    p = run_cli("check", ".", "--select", "yaml", "--select", "ocp-versions-missing", "--format", "json", cwd=findings_tree)
    assert len(json.loads(p.stdout)["findings"]) == 3


def test_unknown_rule_in_select_is_exit_2_with_did_you_mean(findings_tree):
    p = run_cli("check", ".", "--select", "yaml-duplicate-keys", cwd=findings_tree)
    assert p.returncode == 2 and p.stdout == ""
    assert "--select: 'yaml-duplicate-keys' is not a rule id or the prefix of one (did you mean 'yaml-duplicate-key'" in one_line(p.stderr)
    p = run_cli("check", ".", "--ignore", "removed-apis", cwd=findings_tree)
    assert p.returncode == 2 and "did you mean 'removed-api'" in one_line(p.stderr)


def test_statistics_counts_per_rule(findings_tree):
    p = run_cli("check", ".", "--statistics", "--severity", "info", cwd=findings_tree)
    assert p.returncode == 1
    assert p.stdout.splitlines() == [
        "1  error    yaml-duplicate-key",
        "1  warning  ocp-versions-missing",
        "1  warning  yaml-duplicate-key",
        "1  info     ocp-versions-closed-range",
        "2 bundle(s) checked: 1 error(s), 2 warning(s), 1 info",
    ]
    p = run_cli("check", ".", "--statistics", "--format", "json", cwd=findings_tree)
    data = json.loads(p.stdout)
    assert {(s["rule"], s["severity"], s["count"]) for s in data["statistics"]} == {
        ("yaml-duplicate-key", "error", 1), ("yaml-duplicate-key", "warning", 1),
        ("ocp-versions-missing", "warning", 1), ("ocp-versions-closed-range", "info", 1)}
    assert data["summary"]["bundles"] == 2
    p = run_cli("check", ".", "--statistics", "--format", "sarif", cwd=findings_tree)
    assert p.returncode == 2 and "--statistics" in one_line(p.stderr)


def test_quiet_prints_the_findings_only(findings_tree):
    p = run_cli("check", ".", "--quiet", cwd=findings_tree)  # grouped by file: the path, then its findings
    assert p.returncode == 1
    heads = [l for l in p.stdout.splitlines() if l and not l.startswith(" ")]
    assert heads and all(h.endswith((".yaml", "Dockerfile")) for h in heads), heads
    assert "bundle(s) checked" not in p.stdout
    p = run_cli("check", ".", "--quiet", "--output-format", "concise", cwd=findings_tree)
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    assert len(lines) == 3 and all(": error " in l or ": warning " in l for l in lines)
    p = run_cli("check", "closed", "-q", "--select", "ocp-versions-missing", cwd=findings_tree)
    assert p.returncode == 0 and p.stdout == ""


def test_rules_explains_one_rule():
    p = run_cli("rules", "yaml-duplicate-key")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("yaml-duplicate-key: ")
    assert lines[2].startswith("severity: community ") and "minimal " in lines[2]
    assert "reference: docs/rules.md#yaml-duplicate-key" in p.stdout
    assert "who refuses it:" in p.stdout
    p = run_cli("rules", "yaml-duplicate-key", "--format", "json")
    data = json.loads(p.stdout)
    assert data["id"] == "yaml-duplicate-key" and data["explanation"] and data["refused_by"]
    p = run_cli("rules", "removed-apis")
    assert p.returncode == 2 and p.stdout == ""
    assert "unknown rule id 'removed-apis' (did you mean 'removed-api'" in one_line(p.stderr)


def test_view_options_are_part_of_the_run_snapshot(tmp_path):
    # a catalog repository root with --cache: a second run with other view options is not the first's report
    repo = build_tree("catalog", tmp_path / "repo")
    cache = str(tmp_path / "cache")
    a = run_cli("check", ".", "--cache", cache, "--severity", "info", cwd=repo)
    b = run_cli("check", ".", "--cache", cache, "--statistics", cwd=repo)
    c = run_cli("check", ".", "--cache", cache, "--severity", "info", cwd=repo)
    assert a.returncode == c.returncode and a.stdout == c.stdout
    assert b.stdout != a.stdout and b.stdout.splitlines()[-1].startswith(a.stdout.splitlines()[-1].split(":")[0])
