"""Findings people read (issue 19, items 1 and 6), through real runs of the CLI:

* ``path:line:col: severity rule-id message [OCP ...]`` with a one-sentence message; the
  detail (why, fix) and the rule's page only with ``--explain``;
* a help link per rule: text (``--explain``), JSON (``help_uri``), SARIF (``helpUri``, and
  the detail in the result's ``message.markdown``), each an anchor docs/rules.md has;
* colour on a terminal only (``NO_COLOR``, ``--color``), never in an ``--output`` file;
* a finding about a directory is at a file in it, never ``dir:1:1``;
* text paths relative to the current directory (JSON/SARIF stay repository-relative);
* a release that is not GA is shown as such wherever releases are printed.
"""
import json
import os
import pty
import re
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES
from helpers import ROOT, run_cli

TOP = os.path.dirname(FIXTURES)  # the materialised fixtures/ lies in TOP, as in the repository
ANSI = re.compile(r"\033\[[0-9;]*m")
LINE = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info) (?P<rule>[a-z0-9-]+) (?P<msg>.+)$")


def _anchors() -> set:
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as fh:
        return {m.group(1) for m in re.finditer(r"^## ([a-z0-9-]+)$", fh.read(), re.M)}


@pytest.fixture
def case(tmp_path):
    """fixtures/rules/bundle-layout/bad (a bundle directory without metadata/) and
    bundle-annotations/bad in a git work tree of their own, under repo/bundles/."""
    repo = tmp_path / "repo"
    for name, rel in (("no-metadata", "rules/bundle-layout/bad"), ("annotations", "rules/bundle-annotations/bad")):
        shutil.copytree(os.path.join(FIXTURES, rel), repo / "bundles" / name, symlinks=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_text_line_is_path_line_col_severity_rule_message_and_explain_adds_detail_and_link(case):
    p = run_cli("check", "bundles", "--output-format", "concise", cwd=str(case))
    assert p.returncode == 1, p.stderr
    lines = [l for l in p.stdout.splitlines() if LINE.match(l)]
    assert lines and not ANSI.search(p.stdout)  # a pipe: no colour
    m = LINE.match(next(l for l in lines if " bundle-annotations " in l))
    assert m.group("path") == "bundles/annotations/metadata/annotations.yaml" and (m.group("line"), m.group("col")) == ("7", "61")
    msg = m.group("msg")
    assert "'fast'" in msg and "stable" in msg  # the values that matter
    assert "opm refuses the package" not in p.stdout and "docs/rules.md" not in p.stdout  # the detail only with --explain

    e = run_cli("check", "bundles", "--explain", "--output-format", "concise", cwd=str(case))
    out = e.stdout.splitlines()
    i = out.index(next(l for l in out if " bundle-annotations " in l))
    beneath = []
    for l in out[i + 1:]:
        if not l.startswith("    "):
            break
        beneath.append(l.strip())
    text = " ".join(beneath)
    assert "opm refuses the package" in text  # the why
    assert "Set it to one of" in text  # the fix
    assert beneath[-1] == "see https://github.com/olm-check/olm-check/blob/main/docs/rules.md#bundle-annotations"


def test_help_links_in_json_and_sarif_point_at_rule_pages_that_exist(case):
    anchors = _anchors()
    p = run_cli("check", "bundles", "--format", "json", cwd=str(case))
    report = json.loads(p.stdout)
    assert report["findings"]
    for f in report["findings"]:
        uri = f["help_uri"]
        assert uri.startswith("https://github.com/olm-check/olm-check/blob/main/docs/rules.md#")
        assert uri.rsplit("#", 1)[1] == f["rule"] in anchors
        assert f["detail"], f  # every finding of these rules says why and how to fix it
    s = json.loads(run_cli("check", "bundles", "--format", "sarif", cwd=str(case)).stdout)
    run = s["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    for res in run["results"]:
        assert rules[res["ruleId"]]["helpUri"].rsplit("#", 1)[1] == res["ruleId"] in anchors
        f = next(f for f in report["findings"] if f["rule"] == res["ruleId"] and f["line"] == res["locations"][0]["physicalLocation"]["region"]["startLine"])
        assert res["message"]["text"].rstrip(".") == f["message"].rstrip(".")
        md = res["message"]["markdown"]
        assert md.startswith(res["message"]["text"].split(" ")[0]) and f"]({rules[res['ruleId']]['helpUri']})" in md
        assert f["detail"].split(" ")[0] in md


def _tty_run(args, cwd, env):
    """Run the CLI with stdout on a pseudo-terminal; returns (exit code, what it printed)."""
    master, slave = pty.openpty()
    e = dict(os.environ, PYTHONPATH=ROOT, **env)
    e.pop("GITHUB_ACTIONS", None)
    proc = subprocess.Popen([sys.executable, "-m", "checker", *args], cwd=cwd, env=e, stdout=slave,
                            stderr=subprocess.PIPE)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    code = proc.wait(timeout=120)
    os.close(master)
    return code, b"".join(chunks).decode("utf-8", "replace")


def test_colour_on_a_terminal_only_and_never_with_no_color(case, tmp_path):
    env = {"NO_COLOR": "", "TERM": "xterm"}
    code, out = _tty_run(["check", "bundles"], str(case), env)
    assert code == 1 and "\033[1;31merror\033[0m" in out and "\033[2mbundle-layout\033[0m" in out
    code, out = _tty_run(["check", "bundles"], str(case), dict(env, NO_COLOR="1"))
    assert code == 1 and not ANSI.search(out) and "  error  " in out and "  bundle-layout" in out
    # --color wins over both: never on a terminal, always in a pipe; the --output file is plain text
    code, out = _tty_run(["check", "bundles", "--color", "never"], str(case), env)
    assert not ANSI.search(out)
    report = tmp_path / "report.txt"
    p = run_cli("check", "bundles", "--color", "always", "--output", str(report), cwd=str(case), env={"NO_COLOR": "1"})
    assert ANSI.search(p.stdout)
    saved = report.read_text(encoding="utf-8")
    assert not ANSI.search(saved) and saved == ANSI.sub("", p.stdout)
    # json is never coloured
    p = run_cli("check", "bundles", "--color", "always", "--format", "json", cwd=str(case))
    json.loads(p.stdout)


def test_no_finding_is_at_a_directory():
    """Every bad fixture, as the reports print them: a finding about a bundle directory,
    manifests/ or an operator directory is put at a file an editor opens (line 1)."""
    cases = sorted(os.path.join("fixtures", "rules", r, c) for r in os.listdir(os.path.join(FIXTURES, "rules"))
                   for c in os.listdir(os.path.join(FIXTURES, "rules", r)) if c.startswith("bad"))
    p = run_cli("check", *cases, "--format", "json", "--fail-on", "never", cwd=TOP)
    report = json.loads(p.stdout)
    at_dirs = [(f["rule"], f["path"]) for f in report["findings"]
               if os.path.isdir(os.path.join(TOP, f["path"])) and not os.path.islink(os.path.join(TOP, f["path"]))]
    assert not at_dirs
    # the bundle without metadata/: at its CSV
    f = [f for f in report["findings"] if f["path"].startswith("fixtures/rules/bundle-layout/bad/")]
    assert [(x["path"], x["line"], x["column"]) for x in f] == [
        ("fixtures/rules/bundle-layout/bad/manifests/example-operator.clusterserviceversion.yaml", 1, 1)]


def test_text_paths_are_relative_to_the_current_directory_json_to_the_repository(case, tmp_path):
    where = case / "bundles"
    p = run_cli("check", "annotations", "--output-format", "concise", cwd=str(where))
    paths = [LINE.match(l).group("path") for l in p.stdout.splitlines() if LINE.match(l)]
    assert paths and all(os.path.isfile(where / x) for x in paths), paths
    assert "bundle annotations: " in p.stdout  # the bundle line too
    report = json.loads(run_cli("check", "annotations", "--format", "json", cwd=str(where)).stdout)
    assert {f["path"].split("/", 2)[0] for f in report["findings"]} == {"bundles"}  # repository-relative
    assert report["bundles"][0]["path"] == "bundles/annotations"
    # from outside the repository, with the path as typed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    p = run_cli("check", os.path.join("..", "repo", "bundles"), "--output-format", "concise", cwd=str(elsewhere))
    paths = [LINE.match(l).group("path") for l in p.stdout.splitlines() if LINE.match(l)]
    assert paths and all(x.startswith("../repo/bundles/") and os.path.isfile(elsewhere / x) for x in paths), paths
    # github format: workflow commands keep repository-relative paths (GitHub resolves them against the repository)
    g = run_cli("check", "annotations", "--format", "github", cwd=str(where))
    assert "file=bundles/annotations/metadata/annotations.yaml" in g.stdout


def test_releases_that_are_not_ga_are_shown_as_such_everywhere(case, tmp_path):
    # 4.23 is another name of 5.0 (OLM's normalizeOCPVersion): the release after 4.22
    p = run_cli("check", "bundles/annotations", "--ocp", "4.21,4.22,4.23", "--output-format", "concise", cwd=str(case))
    bundle = next(l for l in p.stdout.splitlines() if l.startswith("bundle "))
    assert "published to OCP 4.21-4.22, 5.0 (not GA); minKubeVersion allows 4.21-4.22, 5.0 (not GA)" in bundle
    report = json.loads(run_cli("check", "bundles/annotations", "--format", "json", cwd=str(case)).stdout)
    assert report["ocp_not_ga"] == ["5.0"] and "5.0" in report["bundles"][0]["ocp_versions"]
    # the github format's job summary (and so the Action's): the same wording
    summary = tmp_path / "summary.md"
    run_cli("check", "bundles/annotations", "--format", "github", cwd=str(case), env={"GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text(encoding="utf-8")
    # (in the bundle table; the per-release table is left out when every release has the same findings)
    assert "5.0 (not GA)" in text and "| 4.14-4.22, 5.0 (not GA) |" in text
    # the release table comes from checker/data, and the configuration corrects it
    # (an entry for 4.23 corrects 5.0, the same release)
    (case / ".olm-check.yaml").write_text('ocp_releases:\n  - {ocp: "4.23", kube: "1.36", ga: true}\n'
                                         '  - {ocp: "5.1", kube: "1.37", ga: false}\n')
    p = run_cli("check", "bundles/annotations", "--ocp", "4.22,5.0,5.1", "--output-format", "concise", cwd=str(case))
    bundle = next(l for l in p.stdout.splitlines() if l.startswith("bundle "))
    assert "published to OCP 4.22-5.0, 5.1 (not GA)" in bundle
    report = json.loads(run_cli("check", "bundles/annotations", "--format", "json", cwd=str(case)).stdout)
    assert report["ocp_not_ga"] == ["5.1"]


def test_merge_keeps_the_releases_not_ga(case, tmp_path):
    out = tmp_path / "a.json"
    run_cli("check", "bundles", "--format", "json", "--output", str(out), cwd=str(case))
    p = run_cli("merge", str(out), "--format", "text", cwd=str(case))
    assert "5.0 (not GA)" in p.stdout
    assert json.loads(run_cli("merge", str(out), cwd=str(case)).stdout)["ocp_not_ga"] == ["5.0"]


def test_releases_a_message_names_are_not_repeated_on_the_line(tmp_path):
    """removed-api's message says 'cannot install on OpenShift 4.12': the line does not end
    with '[OCP 4.12]' as well; --explain still lists the releases beneath it."""
    dest = tmp_path / "bundle"
    shutil.copytree(os.path.join(FIXTURES, "rules", "removed-api", "bad"), dest, symlinks=True)
    p = run_cli("check", ".", "--output-format", "concise", cwd=str(dest))
    line = next(l for l in p.stdout.splitlines() if " removed-api " in l)
    assert line.endswith("cannot install on OpenShift 4.12"), line
    e = run_cli("check", ".", "--explain", "--output-format", "concise", cwd=str(dest))
    out = e.stdout.splitlines()
    i = next(n for n, l in enumerate(out) if " removed-api " in l)
    assert out[i + 1] == "    OCP releases: 4.12"
    data = json.loads(run_cli("check", ".", "--format", "json", cwd=str(dest)).stdout)
    assert next(f for f in data["findings"] if f["rule"] == "removed-api")["ocp_versions"] == ["4.12"]
