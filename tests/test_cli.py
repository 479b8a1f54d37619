"""The command line end to end, on real directory trees (fixtures/trees/, built by
tests/trees.py), run as users run it: ``python -m checker`` in a subprocess.

Covers exit codes (0/1/2 and --fail-on), the JSON report against its JSON Schema
(tests/schemas/report.schema.json, the contract of design.md), text and github formats,
--output, --ocp, --profile, --changed-since in a real git repository, display paths, inline
ignore comments, config files (per-path overrides, unknown ids), and `olm-check rules`.
"""
import json
import os
import re
import subprocess

import jsonschema
import pytest

from helpers import ROOT, run_cli
from trees import build_tree, line_of

SCHEMA_PATH = os.path.join(ROOT, "tests", "schemas", "report.schema.json")
CSV = "manifests/example-operator.clusterserviceversion.yaml"
TEXT_LINE = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>[1-9]\d*):(?P<col>[1-9]\d*): (?P<sev>error|warning|info) "
                       r"(?P<rule>[a-z0-9]+(?:-[a-z0-9]+)*) (?P<msg>.+)$")


@pytest.fixture(scope="module")
def schema():
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        s = json.load(fh)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


@pytest.fixture
def findings_tree(tmp_path):
    return build_tree("findings", tmp_path / "findings")


@pytest.fixture
def catalog_tree(tmp_path):
    return build_tree("catalog", tmp_path / "catalog")


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


_INPROC = None  # (capsys, monkeypatch) of the running test, set by the autouse fixture


@pytest.fixture(autouse=True)
def _inproc(capsys, monkeypatch):
    global _INPROC
    _INPROC = (capsys, monkeypatch)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    yield
    _INPROC = None


def cli(*args, cwd, env=None, subprocess=False):
    """Run the command line. ``subprocess=True``: ``python -m checker`` as users run it (exit
    code, streams and environment of a real process); else ``checker.cli.main`` in this
    process with the same arguments, working directory and environment (fast: most tests)."""
    if subprocess:
        p = run_cli(*args, cwd=str(cwd), env=env)
        assert "Traceback" not in p.stderr, p.stderr
        return p
    from checker.cli import main

    capsys, mp = _INPROC
    with mp.context() as m:
        m.chdir(cwd)
        for k, v in (env or {}).items():
            m.setenv(k, v)
        args = list(args)
        if args and args[0] == "check" and "--jobs" not in args:
            args += ["--jobs", "1"]
        capsys.readouterr()
        code = main(args)
        out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return Run(code, out, err)


def report(*args, cwd, schema=None, code=None, subprocess=False):
    p = cli("check", *args, "--format", "json", cwd=cwd, subprocess=subprocess)
    assert p.returncode in (0, 1), p.stderr
    if code is not None:
        assert p.returncode == code, (p.returncode, p.stdout[-2000:])
    data = json.loads(p.stdout)
    if schema is not None:
        errors = sorted(schema.iter_errors(data), key=lambda e: list(e.path))
        assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]
    return data


def keyed(data):
    return {(f["rule"], f["path"], f["line"], f["severity"]) for f in data["findings"]}


def expected_findings(tree):
    """The findings tree's four findings under the default profile (lines read from the built
    files, so the good bundle may change beneath them)."""
    return {
        ("yaml-duplicate-key", "closed/manifests/settings.yaml", 8, "error"),
        ("ocp-versions-closed-range", "closed/metadata/annotations.yaml",
         line_of(os.path.join(tree, "closed/metadata/annotations.yaml"), "com.redhat.openshift.versions"), "info"),
        ("yaml-duplicate-key", "unlabeled/" + CSV, line_of(os.path.join(tree, "unlabeled", CSV), "  maturity: stable", 2), "warning"),
        ("ocp-versions-missing", "unlabeled/metadata/annotations.yaml", 2, "warning"),
    }


# -- exit codes -----------------------------------------------------------------------------

def test_clean_catalog_exits_0_even_with_fail_on_info(catalog_tree, schema):
    data = report(".", "--fail-on", "info", cwd=catalog_tree, schema=schema, code=0, subprocess=True)
    assert data["findings"] == []
    assert [b["path"] for b in data["bundles"]] == ["operators/example-operator/1.0.0", "operators/example-operator/1.1.0"]
    assert data["summary"] == {"bundles": 2, "errors": 0, "warnings": 0, "info": 0}


def test_findings_tree_json_is_exactly_the_contract(findings_tree, schema):
    data = report(".", cwd=findings_tree, schema=schema, code=1, subprocess=True)
    assert keyed(data) == expected_findings(findings_tree)
    assert data["summary"] == {"bundles": 2, "errors": 1, "warnings": 2, "info": 1}
    closed = next(b for b in data["bundles"] if b["path"] == "closed")
    assert closed == {"path": "closed", "package": "example-operator", "csv": "example-operator.v1.0.0",
                      "mediatype": "registry+v1", "ocp_label": "v4.14-v4.16",
                      "ocp_versions": ["4.14", "4.15", "4.16"], "ocp_installable": ["4.14", "4.15", "4.16"]}
    for f in data["findings"]:
        assert f["bundle"] in ("closed", "unlabeled")
    info = next(f for f in data["findings"] if f["rule"] == "ocp-versions-closed-range")
    assert info["ocp_versions"], "a version-aware finding names the releases it applies to"


@pytest.mark.parametrize("fail_on,code", [("never", 0), ("error", 1), ("warning", 1), ("info", 1)])
def test_fail_on_with_an_error(findings_tree, fail_on, code):
    assert cli("check", ".", "--fail-on", fail_on, cwd=findings_tree).returncode == code


@pytest.mark.parametrize("fail_on,code", [("never", 0), ("error", 0), ("warning", 1), ("info", 1)])
def test_fail_on_with_only_warnings(findings_tree, fail_on, code):
    p = cli("check", "unlabeled", "--fail-on", fail_on, cwd=findings_tree)
    assert p.returncode == code
    assert p.stdout.rstrip().endswith("1 bundle(s) checked: 0 error(s), 2 warning(s), 0 info")


def test_fail_on_from_the_config_file(findings_tree):
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write("fail_on: warning\n")
    assert cli("check", "unlabeled", cwd=findings_tree).returncode == 1
    assert cli("check", "unlabeled", "--fail-on", "error", cwd=findings_tree).returncode == 0  # the option wins


@pytest.mark.parametrize("args,words", [
    (["check", "--format", "xml", "."], "invalid choice"),
    (["check", "--no-such-option", "."], "unrecognized arguments"),
    (["check", "does-not-exist"], "does-not-exist: no such file or directory"),
    (["check", ".", "--config", "missing.yaml"], "missing.yaml"),
    (["check", ".", "--ocp", "4.x"], "--ocp"),
    (["check", ".", "--ocp", "4.16.1"], "--ocp"),
    (["check", ".", "--output", "no/such/dir/report.json"], "--output"),
    (["check", ".", "--changed-since", "HEAD"], "--changed-since"),  # not a git repository
    (["frobnicate"], "not a command"),
    (["chek"], "invalid choice"),
    ([], "usage"),
])
def test_usage_errors_exit_2_with_a_message_and_no_traceback(findings_tree, args, words):
    p = cli(*args, cwd=findings_tree, subprocess=args[:2] in (["check", "--no-such-option"], ["check", "does-not-exist"]))
    assert p.returncode == 2, (p.returncode, p.stdout[-500:], p.stderr)
    assert words in p.stderr
    assert p.stdout == "" or args == [] or "--output" in args


@pytest.mark.parametrize("config,words", [
    ("rules:\n  no-such-rule: off\n", "no-such-rule"),
    ("paths:\n  - path: 'closed/**'\n    rules: {not-a-rule: warning}\n", "not-a-rule"),
    ("rules:\n  yaml-syntax: loud\n", "yaml-syntax"),
    ("unknown_setting: 1\n", "unknown_setting"),
    ("profile: strict\n", "profile"),
    ("limits: {max_depth: -1}\n", "max_depth"),
    ("limits: {max_depth: 32, max_widgets: 3}\n", "max_widgets"),
    ("rules: [a, b]\n", "rules"),
    ("- just\n- a list\n", "mapping"),
    ("rules:\n  yaml-syntax: [\n", "not valid YAML"),
    ("ocp_releases:\n  - {ocp: 4.24, kube: '1.37'}\n", "ocp_releases"),
    ("ocp_releases:\n  - {ocp: '4.30', kube: '1.43', ga: maybe}\n", "ga"),
    ("ocp_releases: '4.30'\n", "ocp_releases must be a list"),
    ("paths: closed\n", "paths must be a list"),
    ("limits: [1]\n", "limits must be a mapping"),
    ("limits: {max_file_mib: 100000000000}\n", "at most"),  # would read whole files into memory
    ("limits: {max_depth: 100000}\n", "at most"),
    ("options: [a]\n", "options must be a mapping"),
    ("apis: {removed: x}\n", "apis.removed"),
    ("apis: {removed: [{}]}\n", "apis.removed[0]"),
    ("apis: {removed: [{group: '', version: v1, kinds: [Pod]}]}\n", "removed"),
    ("apis: {removed: [{group: '', version: v1, kinds: [Pod], removed: 1.30}]}\n", "quoted"),
    ("apis: {introduced: 5}\n", "apis.introduced"),
    ("apis: {dropped: []}\n", "dropped"),
    ("rules: !!float x\n", "not valid YAML"),  # a value its tag cannot construct
    ("fail_on: !!int x\n", "not valid YAML"),
    ("fail_on: !!int ''\n", "not valid YAML"),  # PyYAML raises IndexError here
    ("fail_on: !!bool maybe\n", "not valid YAML"),  # ... and KeyError here
])
def test_bad_config_file_exits_2(findings_tree, config, words):
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write(config)
    p = cli("check", ".", cwd=findings_tree, subprocess=words == "no-such-rule")
    assert p.returncode == 2, p.stdout[-500:]
    assert words in p.stderr and p.stderr.startswith("olm-check: ")
    assert p.stdout == ""


def test_config_adds_a_removed_api(findings_tree):
    """A valid extra API entry is used: a ConfigMap at v1 'removed' in 1.15 is reported."""
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write("apis:\n  removed:\n    - {group: '', version: v1, kinds: [ConfigMap], deprecated: '1.10', removed: '1.15', use: v2}\n")
    data = report("closed", "--ocp", "4.14", cwd=findings_tree)
    assert ("removed-api", "closed/manifests/settings.yaml") in {(f["rule"], f["path"]) for f in data["findings"]}


def test_binary_config_file_exits_2(findings_tree):
    with open(os.path.join(findings_tree, "cfg.yaml"), "wb") as fh:
        fh.write(b"\xff\xfe\x00\x00garbage\x00\x01")
    p = cli("check", ".", "--config", "cfg.yaml", cwd=findings_tree)
    assert p.returncode == 2 and "cfg.yaml" in p.stderr


# -- formats ---------------------------------------------------------------------------------

def test_text_format_lines(findings_tree):
    p = cli("check", ".", "--severity", "info", "--output-format", "concise", cwd=findings_tree)  # text hides info unless asked
    data = report(".", cwd=findings_tree)
    lines = p.stdout.rstrip("\n").split("\n")
    n = len(data["findings"])
    parsed = [TEXT_LINE.match(l) for l in lines[:n]]
    assert all(parsed), lines[:n]
    assert [(m["path"], int(m["line"]), int(m["col"]), m["sev"], m["rule"]) for m in parsed] == [
        (f["path"], f["line"], f["column"], f["severity"], f["rule"]) for f in data["findings"]]
    for m, f in zip(parsed, data["findings"]):
        assert m["msg"].startswith(f["message"])
    assert lines[n].startswith("bundle closed: example-operator.v1.0.0; label v4.14-v4.16; published to OCP 4.14-4.16")
    assert lines[n + 1].startswith("bundle unlabeled: ")
    assert lines[-1] == "2 bundle(s) checked: 1 error(s), 2 warning(s), 1 info"
    closed_range = next(f for f in data["findings"] if f["rule"] == "ocp-versions-closed-range")
    # the message names the releases it applies to, so the line does not repeat them as [OCP ...]
    span = f"{closed_range['ocp_versions'][0]}-{closed_range['ocp_versions'][-1]}"
    line = next(l for l in lines if "ocp-versions-closed-range" in l)
    assert line.endswith(f"OpenShift {span}") and "[OCP" not in line


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_output_file_holds_what_stdout_shows(findings_tree, tmp_path, fmt):
    out = tmp_path / f"report.{fmt}"
    p = cli("check", ".", "--format", fmt, "--output", str(out), cwd=findings_tree)
    assert p.returncode == 1
    assert out.read_text(encoding="utf-8") == p.stdout
    if fmt in ("json", "sarif"):
        json.loads(p.stdout)


def _unescape_data(s):
    return s.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def _unescape_prop(s):
    return _unescape_data(s.replace("%3A", ":").replace("%2C", ","))


def _parse_command(line):
    m = re.match(r"^::(error|warning|notice) ([^:]*)::(.*)$", line)
    assert m, line
    props = {}
    for part in m.group(2).split(","):
        k, _, v = part.partition("=")
        props[k] = _unescape_prop(v)
    return m.group(1), props, _unescape_data(m.group(3))


def test_github_format_escapes_workflow_commands(findings_tree, tmp_path):
    # a file name with %, a comma and a colon, and a message that quotes bundle text holding a newline
    weird = os.path.join(findings_tree, "closed", "manifests", "a%25b,c:d.yaml")
    with open(weird, "w") as fh:
        fh.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w\ndata:\n  '100%, yes: no': a\n  '100%, yes: no': b\n")
    ann = os.path.join(findings_tree, "unlabeled", "metadata", "annotations.yaml")
    with open(ann) as fh:
        text = fh.read()
    with open(ann, "w") as fh:
        fh.write(text.replace("mediatype.v1: registry+v1", 'mediatype.v1: "registry+v1\\r\\nfoo::bar%0A"'))
    summary = tmp_path / "summary.md"
    summary.write_text("previous step\n")
    p = cli("check", ".", "--format", "github", cwd=findings_tree, env={"GITHUB_STEP_SUMMARY": str(summary)}, subprocess=True)
    assert p.returncode == 1
    data = report(".", cwd=findings_tree)
    lines = p.stdout.splitlines()
    assert len(lines) == len(data["findings"])  # one command per finding, never split by a newline
    commands = [_parse_command(l) for l in lines]
    level = {"error": "error", "warning": "warning", "info": "notice"}
    for (lvl, props, msg), f in zip(commands, data["findings"]):
        assert lvl == level[f["severity"]]
        assert props["file"] == f["path"] and props["line"] == str(f["line"]) and props["col"] == str(f["column"])
        assert props["title"] == "olm-check " + f["rule"]
        from checker.report.text import _ranges

        ocp = f" [OCP {_ranges(f['ocp_versions'], data['ocp_not_ga'])}]" if f["ocp_versions"] else ""
        assert msg == f["message"] + ocp  # the message, and the releases as the text report prints them
    assert any(props["file"] == "closed/manifests/a%25b,c:d.yaml" for _l, props, _m in commands)
    raw = next(l for l in lines if "a%2525b" in l)
    assert "file=closed/manifests/a%2525b%2Cc%3Ad.yaml," in raw
    newline_msg = [m for _l, _p, m in commands if "\r\n" in m]
    assert newline_msg, "the mediatype message quotes the value with its newline"
    assert "%0D%0A" in next(l for l in lines if "%0D%0A" in l)
    # the job summary is appended, not overwritten
    s = summary.read_text(encoding="utf-8")
    assert s.startswith("previous step\n## olm-check")
    assert "| bundle | CSV | label | published to OCP | installable on |" in s
    assert "`closed`" in s and "`v4.14-v4.16`" in s


def test_github_format_without_step_summary_writes_nothing_else(findings_tree):
    p = cli("check", ".", "--format", "github", cwd=findings_tree, env={"GITHUB_STEP_SUMMARY": ""})
    assert p.returncode == 1 and all(l.startswith("::") for l in p.stdout.splitlines())


# -- options ---------------------------------------------------------------------------------

def test_ocp_target_replaces_the_declared_range(findings_tree, schema):
    data = report(".", "--ocp", "4.16", cwd=findings_tree, schema=schema)
    for b in data["bundles"]:
        assert b["ocp_versions"] == ["4.16"]
    data = report(".", "--ocp", "v4.16, 4.17", cwd=findings_tree, schema=schema)
    closed = next(b for b in data["bundles"] if b["path"] == "closed")
    assert closed["ocp_versions"] == ["4.16", "4.17"]


@pytest.mark.parametrize("profile,delta", [
    ("community", {}),
    # yaml-duplicate-key: the Red Hat pipelines' yaml-lint task refuses it; elsewhere a warning
    ("operatorhub", {"yaml-duplicate-key": "warning"}),
    ("certified", {"ocp-versions-missing": "error"}),
    ("marketplace", {"ocp-versions-missing": "error"}),
    ("minimal", {"ocp-versions-missing": None, "ocp-versions-closed-range": None, "yaml-duplicate-key": "warning"}),
])
def test_profile(findings_tree, profile, delta):
    data = report(".", "--profile", profile, cwd=findings_tree)
    want = set()
    for rule, path, line, sev in expected_findings(findings_tree):
        if rule in delta:
            if delta[rule] is None:
                continue
            sev = delta[rule]
        want.add((rule, path, line, sev))
    got = keyed(data)
    if profile == "marketplace":  # the tree's CSVs lack the marketplace URLs redhat-marketplace's pipeline requires
        extra = {k for k in got if k[0] == "marketplace-annotation"}
        assert extra and all(k[3] == "error" for k in extra)
        got -= extra
    assert got == want


def test_profile_from_config_and_option_wins(findings_tree):
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write("profile: minimal\n")
    assert "ocp-versions-missing" not in {f["rule"] for f in report(".", cwd=findings_tree)["findings"]}
    assert "ocp-versions-missing" in {f["rule"] for f in report(".", "--profile", "community", cwd=findings_tree)["findings"]}


# -- display paths ---------------------------------------------------------------------------

def _git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull)
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True, env=env).stdout


def test_paths_relative_to_the_git_root_from_a_subdirectory(catalog_tree):
    _git(catalog_tree, "init", "-q", "-b", "main")
    _rewrite(os.path.join(catalog_tree, "operators/example-operator/1.1.0", CSV),
             "\n  maturity: stable\n", "\n  maturity: stable\n  maturity: stable\n")  # one finding to look at
    sub = os.path.join(catalog_tree, "operators", "example-operator")
    data = report("1.1.0", cwd=sub)
    assert [b["path"] for b in data["bundles"]] == ["operators/example-operator/1.1.0"]
    assert {f["path"] for f in data["findings"]} == {"operators/example-operator/1.1.0/" + CSV}
    data = report(".", cwd=os.path.join(sub, "1.1.0", "manifests"))  # even from inside the bundle
    assert data["bundles"][0]["path"] == "operators/example-operator/1.1.0"


def test_paths_relative_to_the_current_directory_outside_git(findings_tree, tmp_path):
    data = report("findings/closed", cwd=tmp_path)
    assert [b["path"] for b in data["bundles"]] == ["findings/closed"]
    assert ("yaml-duplicate-key", "findings/closed/manifests/settings.yaml", 8, "error") in keyed(data)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    data = report("../findings/closed", cwd=elsewhere)  # outside the current directory: as given
    assert [b["path"] for b in data["bundles"]] == ["../findings/closed"]
    assert ("yaml-duplicate-key", "../findings/closed/manifests/settings.yaml", 8, "error") in keyed(data)
    absolute = os.path.join(findings_tree, "closed")
    data = report(absolute, cwd=elsewhere)
    assert [b["path"] for b in data["bundles"]] == [absolute]


def test_a_second_path_outside_the_first_ones_tree_is_read(findings_tree, catalog_tree):
    """Every path named on the command line is part of the checked tree, wherever it is."""
    _git(catalog_tree, "init", "-q", "-b", "main")
    data = report(".", os.path.join(findings_tree, "closed"), cwd=catalog_tree)
    closed = os.path.join(findings_tree, "closed")
    assert closed in [b["path"] for b in data["bundles"]]
    assert ("yaml-duplicate-key", closed + "/manifests/settings.yaml", 8, "error") in keyed(data)
    assert "yaml-limits" not in {f["rule"] for f in data["findings"]}


# -- --changed-since in a real git repository ------------------------------------------------

def test_changed_since_checks_only_what_changed_three_dot(catalog_tree):
    repo = catalog_tree
    v110 = os.path.join(repo, "operators/example-operator/1.1.0")
    os.rename(v110, os.path.join(repo, "..", "held-back"))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "1.0.0")
    _git(repo, "checkout", "-q", "-b", "feature")
    os.rename(os.path.join(repo, "..", "held-back"), v110)
    _rewrite(os.path.join(v110, CSV), "\n  maturity: stable\n", "\n  maturity: stable\n  maturity: stable\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "1.1.0")
    # main moves on after the branch point: a three-dot diff must not pick that up
    _git(repo, "checkout", "-q", "main")
    _rewrite(os.path.join(repo, "operators/example-operator/1.0.0", CSV), "\n  maturity: stable\n",
             "\n  maturity: stable\n  maturity: stable\n")
    _git(repo, "commit", "-q", "-am", "main moves on")
    _git(repo, "checkout", "-q", "feature")

    data = report(".", "--changed-since", "main", cwd=repo)
    assert [b["path"] for b in data["bundles"]] == ["operators/example-operator/1.1.0"]
    # (yaml-lint lints the changed bundle's every YAML file, as the pipeline's yaml-lint task does: its
    # key-duplicates error is the repeated key's finding, its other findings are about the files' style)
    assert {f["path"] for f in data["findings"] if f["rule"] != "yaml-lint" or "(key-duplicates)" in f["message"]} \
        == {"operators/example-operator/1.1.0/" + CSV}
    assert data["summary"]["bundles"] == 1

    data = report(".", "--changed-since", "HEAD", cwd=repo)  # nothing changed since HEAD
    assert data["bundles"] == [] and data["findings"] == []

    # an uncommitted edit counts as changed
    with open(os.path.join(repo, "operators/example-operator/1.0.0/metadata/annotations.yaml"), "a") as fh:
        fh.write("# touched\n")
    data = report(".", "--changed-since", "HEAD", cwd=repo)
    assert [b["path"] for b in data["bundles"]] == ["operators/example-operator/1.0.0"]

    p = cli("check", ".", "--changed-since", "no-such-ref", cwd=repo)
    assert p.returncode == 2 and "no-such-ref" in p.stderr


# -- suppression and configuration -------------------------------------------------------------

def _rewrite(path, old, new):
    with open(path) as fh:
        text = fh.read()
    assert old in text
    with open(path, "w") as fh:
        fh.write(text.replace(old, new, 1))


@pytest.mark.parametrize("comment,suppressed", [
    ("# olm-check: ignore[yaml-duplicate-key]", True),
    ("# olm-check: ignore[csv-missing, yaml-duplicate-key]", True),
    ("#olm-check: ignore", True),
    ("# olm-check: ignore[yaml-syntax]", False),
    ("# olm-check ignore", False),
])
def test_inline_ignore(findings_tree, comment, suppressed):
    settings = os.path.join(findings_tree, "closed/manifests/settings.yaml")
    _rewrite(settings, "  mode: slow\n", f"  mode: slow  {comment}\n")
    data = report(".", cwd=findings_tree)
    hit = ("yaml-duplicate-key", "closed/manifests/settings.yaml", 8, "error") in keyed(data)
    assert hit is not suppressed
    assert ("ocp-versions-missing", "unlabeled/metadata/annotations.yaml", 2, "warning") in keyed(data)


def test_inline_ignore_applies_only_to_its_own_line(findings_tree):
    settings = os.path.join(findings_tree, "closed/manifests/settings.yaml")
    _rewrite(settings, "  mode: fast\n", "  mode: fast  # olm-check: ignore[yaml-duplicate-key]\n")
    assert ("yaml-duplicate-key", "closed/manifests/settings.yaml", 8, "error") in keyed(report(".", cwd=findings_tree))


def test_config_rule_severities_and_per_path_overrides(findings_tree):
    with open(os.path.join(findings_tree, ".olm-check.yaml"), "w") as fh:
        fh.write("rules:\n"
                 "  ocp-versions-closed-range: off\n"
                 "  ocp-versions-missing: error\n"
                 "paths:\n"
                 "  - path: 'closed/**'\n"
                 "    rules: {yaml-duplicate-key: info}\n"
                 "  - path: 'unlabeled/manifests/*.yaml'\n"
                 "    rules: {yaml-duplicate-key: off}\n")
    data = report(".", cwd=findings_tree)
    assert {(r, p, s) for r, p, _l, s in keyed(data)} == {
        ("yaml-duplicate-key", "closed/manifests/settings.yaml", "info"),
        ("ocp-versions-missing", "unlabeled/metadata/annotations.yaml", "error"),
    }
    assert cli("check", ".", cwd=findings_tree).returncode == 1  # ocp-versions-missing is an error now


def test_config_option_points_at_another_file(findings_tree, tmp_path):
    cfg = tmp_path / "elsewhere.yaml"
    cfg.write_text("rules: {yaml-duplicate-key: off}\n")
    data = report(".", "--config", str(cfg), cwd=findings_tree)
    assert "yaml-duplicate-key" not in {f["rule"] for f in data["findings"]}


# -- olm-check rules -------------------------------------------------------------------------

ISSUE_8_RULES = [
    "ocp-versions-syntax", "ocp-versions-style", "ocp-versions-mismatch", "ocp-versions-missing",
    "ocp-versions-unknown", "ocp-versions-closed-range", "max-ocp-version-syntax", "max-ocp-version-ignored",
    "max-ocp-version-ambiguous", "max-ocp-version-range", "min-kube-version-syntax", "min-kube-version-range",
    "no-version-constraints", "removed-api", "removed-api-on-upgrade", "deprecated-api", "api-not-yet-available",
    "webhook-admission-review-versions", "upgrade-blocker", "infrastructure-features-deprecated",
    "yaml-syntax", "yaml-duplicate-key", "yaml-limits", "bundle-layout", "bundle-annotations",
    "manifest-invalid", "csv-missing",
]


def test_rules_json_lists_every_rule_with_severity_and_explanation(tmp_path):
    p = cli("rules", "--format", "json", cwd=tmp_path)
    assert p.returncode == 0 and p.stderr == ""
    data = json.loads(p.stdout)
    assert set(data) == {"rules"}
    by_id = {r["id"]: r for r in data["rules"]}
    assert len(by_id) == len(data["rules"]), "rule ids are unique"
    missing = [r for r in ISSUE_8_RULES if r not in by_id]
    assert not missing
    for r in data["rules"]:
        assert {"id", "severity", "profiles", "summary", "explanation"} <= set(r)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r["id"])
        assert r["severity"] in ("error", "warning", "info")
        assert set(r["profiles"]) == {"community", "certified", "marketplace", "operatorhub", "minimal"}
        assert set(r["profiles"].values()) <= {"error", "warning", "info", "off"}
        assert r["summary"].strip()
        assert len(r["explanation"]) > 80, f"{r['id']}: the explanation says what, why and the fix"
    assert by_id["ocp-versions-missing"]["profiles"]["certified"] == "error"
    assert by_id["yaml-syntax"]["profiles"]["minimal"] == "error"


def test_rules_text_and_profile_filter(tmp_path):
    p = cli("rules", cwd=tmp_path)
    assert p.returncode == 0
    ids = [l.split()[0] for l in p.stdout.splitlines()]
    assert "yaml-syntax" in ids and "removed-api" in ids
    p = cli("rules", "--profile", "minimal", "--format", "json", cwd=tmp_path)
    minimal = {r["id"] for r in json.loads(p.stdout)["rules"]}
    assert "yaml-syntax" in minimal and "removed-api" not in minimal


def test_version_and_help(tmp_path):
    p = cli("--version", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("olm-check ")
    p = cli("check", "--help", cwd=tmp_path)
    assert p.returncode == 0 and "--changed-since" in p.stdout and "--fail-on" in p.stdout
