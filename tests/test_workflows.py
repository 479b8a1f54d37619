"""The repository's workflows, action.yml and the README's example workflows (issue 21 item 9).

The README's workflows are the files in docs/examples/ (a test keeps them equal), so the
linters check what users copy: actionlint (syntax, expressions, the inputs given to this
action) and zizmor (security) over .github/workflows/, docs/examples/ and action.yml, with
.github/zizmor.yml. Both come with the `lint` extra, which .ci/run installs: in CI (``CI``
set) a missing linter fails the test instead of skipping it.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOWS = sorted(glob.glob(os.path.join(ROOT, ".github", "workflows", "*.yml")))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "docs", "examples", "*.yml")))
SHA = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def _tool(name: str) -> str:
    """The linter next to this Python (the virtualenv's) or on PATH; skipped when absent,
    except in CI, which must run it."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    found = here if os.access(here, os.X_OK) else shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed: CI installs the lint extra (.ci/run)")
        pytest.skip(f"{name} is not installed (pip install -e '.[lint]')")
    return found


DOCS = [os.path.join(ROOT, "README.md")] + sorted(p for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
                                                  if os.path.basename(p) != "rules.md")


def _readme_workflows() -> list:
    """The workflows the README and docs/*.md show (```yaml blocks with jobs:)."""
    blocks = []
    for path in DOCS:
        text = open(path, encoding="utf-8").read()
        blocks += re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    return [b for b in blocks if re.search(r"^jobs:", b, re.M)]


def test_readme_workflows_are_the_linted_example_files():
    """Every workflow the README and docs/*.md show is a file in docs/examples/, verbatim, and
    every example file is shown: what the linters pass is what users copy."""
    assert len(EXAMPLES) >= 5
    examples = {os.path.basename(p): open(p, encoding="utf-8").read() for p in EXAMPLES}
    shown = _readme_workflows()
    for block in shown:
        assert block in examples.values(), "a documented workflow that is not in docs/examples/:\n" + block
    for name, text in examples.items():
        assert text in shown, f"docs/examples/{name} is not shown in the README or docs/"


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_examples_say_concurrency_and_least_permissions(path):
    """Each example limits its token per job (nothing at the workflow level) and says what
    happens to a run that a newer one supersedes."""
    doc = yaml.safe_load(open(path, encoding="utf-8"))
    assert doc.get("permissions") == {}, "permissions: {} at the top, each job asks for its own"
    assert "group" in doc.get("concurrency", {})
    for name, job in doc["jobs"].items():
        assert "permissions" in job, f"job {name} names its permissions"
        assert "write-all" not in str(job["permissions"])


def test_every_action_is_pinned_by_commit():
    """Third-party and GitHub's own actions are pinned by full commit SHA in every workflow;
    only this action (by its major tag in the examples, ./ in CI) is not."""
    for path in WORKFLOWS + EXAMPLES:
        doc = yaml.safe_load(open(path, encoding="utf-8"))
        for job in doc["jobs"].values():
            for step in job.get("steps", []):
                uses = step.get("uses")
                if uses is None or uses == "./" or uses.startswith("olm-check/olm-check@"):
                    continue
                assert SHA.match(uses), f"{os.path.relpath(path, ROOT)}: {uses} is not pinned by commit"


def test_actionlint():
    actionlint = _tool("actionlint")
    p = subprocess.run([actionlint, "-no-color", *WORKFLOWS, *EXAMPLES], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


def test_zizmor():
    zizmor = _tool("zizmor")
    p = subprocess.run([zizmor, "--offline", "--no-progress", "--config", os.path.join(ROOT, ".github", "zizmor.yml"),
                        *WORKFLOWS, *EXAMPLES, os.path.join(ROOT, "action.yml")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "No findings" in p.stdout + p.stderr


def test_release_points_action_yml_at_the_published_image(tmp_path):
    """The release workflow's own step rewrites action.yml to the image it pushed (and fails
    when there is no `image: Dockerfile` line); the development branch keeps the Dockerfile."""
    release = yaml.safe_load(open(os.path.join(ROOT, ".github", "workflows", "release.yml"), encoding="utf-8"))
    pin = next(s for s in release["jobs"]["release"]["steps"] if s.get("id") == "pin")
    action = open(os.path.join(ROOT, "action.yml"), encoding="utf-8").read()
    assert yaml.safe_load(action)["runs"] == {"using": "docker", "image": "Dockerfile"}
    (tmp_path / "action.yml").write_text(action)
    env = dict(os.environ, IMAGE="ghcr.io/olm-check/olm-check", VERSION="v1.2.3")
    p = subprocess.run(["bash", "-e", "-c", pin["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    got = (tmp_path / "action.yml").read_text()
    assert yaml.safe_load(got)["runs"] == {"using": "docker", "image": "docker://ghcr.io/olm-check/olm-check:v1.2.3"}
    assert got.replace("docker://ghcr.io/olm-check/olm-check:v1.2.3", "Dockerfile") == action
    p = subprocess.run(["bash", "-e", "-c", pin["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "no 'image: Dockerfile' line" in p.stdout


def test_release_publishes_to_pypi_with_trusted_publishing():
    """Issue 26: the sdist and the wheels go to PyPI from the release workflow, with the
    maintained PyPA action and an OIDC token (no stored secret), last, after the GitHub release."""
    doc = yaml.safe_load(open(os.path.join(ROOT, ".github", "workflows", "release.yml"), encoding="utf-8"))
    jobs = doc["jobs"]
    pypi = jobs["pypi"]
    assert pypi["needs"] == "release" and pypi["environment"]["name"] == "pypi"
    assert pypi["permissions"] == {"id-token": "write"}
    uses = [s.get("uses", "") for s in pypi["steps"]]
    assert any(u.startswith("pypa/gh-action-pypi-publish@") and SHA.match(u) for u in uses)
    downloaded = [s["with"].get("pattern") or s["with"].get("name") for s in pypi["steps"] if "download-artifact" in s.get("uses", "")]
    assert sorted(downloaded) == ["sdist", "wheels-*"]
    assert "secrets." not in open(os.path.join(ROOT, ".github", "workflows", "release.yml")).read().split("  pypi:")[1]
    assert "python -m build --sdist" in str(jobs["sdist"]["steps"])
    assert not any("id-token" in (j.get("permissions") or {}) for n, j in jobs.items() if n != "pypi")
