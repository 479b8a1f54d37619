"""`olm-check check` run as a plain step of a GitHub workflow (`GITHUB_ACTIONS=true`): the
report holds text a pull request controls (a displayName), and the runner acts on lines that
start with `::` and on `##[name]` anywhere, so the text, JSON and SARIF reports are printed
inside a `::stop-commands::` window whose token the pull request cannot know."""
import json
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from conftest import FIXTURES  # noqa: E402
from helpers import run_cli  # noqa: E402
from test_action_security import Runner  # noqa: E402

HOSTILE = r'"x\n::add-mask::s3cr3t\r::stop-commands::pwned ##[error]forged the v1 way\n::set-output name=errors::0"'


def _hostile_bundle(tmp_path):
    dest = tmp_path / "bundle"
    shutil.copytree(os.path.join(FIXTURES, "bundles", "good"), dest)
    csv = next((dest / "manifests").glob("*.clusterserviceversion.yaml"))
    text = csv.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("  displayName: "))
    csv.write_text(text.replace(first, "  displayName: " + HOSTILE, 1), encoding="utf-8")
    # a file name is printed as it is when it is printable: `##[` anywhere in a line is a command
    (dest / "manifests" / "##[error]forged by a file name.yaml").write_text("not: a kubernetes object\n", encoding="utf-8")
    return str(dest)


def test_text_report_in_a_workflow_step_is_printed_inside_a_stop_commands_window(tmp_path):
    bundle = _hostile_bundle(tmp_path)
    # outside a workflow the text report is printed as it is: the payload would be a command
    # there (which proves this test catches it)
    plain = run_cli("check", bundle, "--fail-on", "never")
    assert plain.returncode == 0, plain.stderr
    assert [c for c in Runner().feed(plain.stdout).commands if c[0] == "error"]
    p = run_cli("check", bundle, "--fail-on", "never", env={"GITHUB_ACTIONS": "true"})
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    runner = Runner().feed(p.stdout)
    assert runner.stop_token is None  # the window is closed at the end
    assert [c[0] for c in runner.commands] == ["stop-commands", "resume"], runner.commands
    token = runner.commands[0][2]
    assert token.startswith("olm-check-") and len(token) == len("olm-check-") + 32
    assert plain.stdout in p.stdout  # the report itself is all there, unchanged


@pytest.mark.parametrize("fmt", ["json", "sarif"])
@pytest.mark.parametrize("in_workflow", [False, True])
def test_json_and_sarif_never_hold_a_command_and_stay_the_same_json(tmp_path, fmt, in_workflow):
    """`##[` can only occur inside a JSON string; it is written `##\\u005b`, the same string,
    so the report stays valid JSON for `> report.json` and `| jq` in a step, and --output
    holds exactly what stdout got."""
    bundle = _hostile_bundle(tmp_path)
    out = tmp_path / ("report." + fmt)
    p = run_cli("check", bundle, "--format", fmt, "--fail-on", "never", "--output", str(out),
                env={"GITHUB_ACTIONS": "true"} if in_workflow else None)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert Runner().feed(p.stdout).commands == []
    assert out.read_text(encoding="utf-8") == p.stdout
    doc = json.loads(p.stdout)
    assert "##[error]forged by a file name" in json.dumps(doc, ensure_ascii=False) or fmt == "sarif"
    if fmt == "json":
        assert any("##[error]forged by a file name" in f["path"] for f in doc["findings"])


def test_the_github_format_is_commands_with_escaped_data(tmp_path):
    bundle = _hostile_bundle(tmp_path)
    p = run_cli("check", bundle, "--format", "github", "--fail-on", "never", env={"GITHUB_ACTIONS": "true"})
    assert p.returncode == 0, p.stderr
    runner = Runner().feed(p.stdout)
    assert runner.commands and {c[0] for c in runner.commands} <= {"error", "warning", "notice"}, runner.commands
    assert all(c[1].get("title", "").startswith("olm-check ") for c in runner.commands)
