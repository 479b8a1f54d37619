"""The operator-sdk / kubebuilder project layout as an input (issue 26): ``make bundle``
writes ``bundle/`` and a root ``bundle.Dockerfile`` (``COPY bundle/manifests /manifests/``);
``config/`` holds the kustomize sources (``config/manifests/`` is the input of
``make bundle``) and is never a bundle; ``exclude:`` in ``.olm-check.yaml`` leaves out other
paths. Each test builds the project as a git repository and runs the CLI in it."""
import json
import os
import shutil
import subprocess

import pytest

from checker.config import Excludes
from checker.config_file import ConfigError, parse_config
from checker.layout import bundle_dockerfile, dockerfile_bundle, in_config_sources
from helpers import ROOT, run_cli

GOOD = os.path.join(ROOT, "fixtures", "bundles", "good")

ROOT_DOCKERFILE = """FROM scratch

# Core bundle labels.
LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=example-operator
LABEL operators.operatorframework.io.bundle.channels.v1={channels}
LABEL operators.operatorframework.io.bundle.channel.default.v1=stable
LABEL com.redhat.openshift.versions="v4.14"

# Copy files to locations specified by labels.
COPY bundle/manifests /manifests/
COPY bundle/metadata /metadata/
"""


def git(root, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout


def project(tmp_path, channels="stable"):
    """What `operator-sdk init` + `make bundle` leave: bundle/, the root bundle.Dockerfile,
    config/ (manifests/bases/<csv>, manifests/kustomization.yaml, rbac/, crd/), the
    operator's own Dockerfile; committed."""
    root = tmp_path / "memcached-operator"
    shutil.copytree(os.path.join(GOOD, "manifests"), root / "bundle" / "manifests")
    shutil.copytree(os.path.join(GOOD, "metadata"), root / "bundle" / "metadata")
    (root / "bundle.Dockerfile").write_text(ROOT_DOCKERFILE.format(channels=channels))
    bases = root / "config" / "manifests" / "bases"
    os.makedirs(bases)
    shutil.copy(os.path.join(GOOD, "manifests", "example-operator.clusterserviceversion.yaml"), bases)
    (root / "config" / "manifests" / "kustomization.yaml").write_text(
        "resources:\n- bases/example-operator.clusterserviceversion.yaml\n- ../default\n- ../samples\n- ../scorecard\n")
    os.makedirs(root / "config" / "rbac")
    (root / "config" / "rbac" / "role.yaml").write_text(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules: []\n")
    os.makedirs(root / "config" / "crd" / "bases")
    shutil.copy(os.path.join(GOOD, "manifests", "example.com_widgets.yaml"), root / "config" / "crd" / "bases")
    (root / "Dockerfile").write_text("FROM golang:1.22 AS builder\n")
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def check_json(root, *args):
    p = run_cli("check", *args, "--format", "json", cwd=root)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def test_the_project_root_checks_bundle_alone(tmp_path):
    root = project(tmp_path)
    code, rep = check_json(root)
    assert code == 0
    assert [b["path"] for b in rep["bundles"]] == ["bundle"]
    assert not [f for f in rep["findings"] if f["path"].startswith("config/")], rep["findings"]
    assert rep["findings"] == []


def test_root_dockerfile_label_mismatch_is_reported_there(tmp_path):
    root = project(tmp_path, channels="alpha")
    code, rep = check_json(root)
    got = [(f["path"], f["line"], f["rule"]) for f in rep["findings"]]
    assert got == [("bundle.Dockerfile", 8, "bundle-annotations")], rep["findings"]
    assert "channels=alpha" in rep["findings"][0]["message"]


def test_naming_the_root_dockerfile_checks_its_bundle(tmp_path):
    root = project(tmp_path, channels="alpha")
    code, rep = check_json(root, "bundle.Dockerfile")
    assert [b["path"] for b in rep["bundles"]] == ["bundle"]
    assert [f["path"] for f in rep["findings"]] == ["bundle.Dockerfile"]
    # and `olm-check PATH` is `olm-check check PATH`
    p = run_cli("bundle", "--format", "json", cwd=root)
    assert p.returncode == 0, p.stderr
    assert [b["path"] for b in json.loads(p.stdout)["bundles"]] == ["bundle"]


def test_a_commit_touching_only_config_checks_nothing(tmp_path):
    root = project(tmp_path)
    (root / "config" / "rbac" / "role.yaml").write_text("# edited\n" + (root / "config" / "rbac" / "role.yaml").read_text())
    (root / "config" / "manifests" / "bases" / "example-operator.clusterserviceversion.yaml").write_text("not: [a, csv\n")
    git(root, "commit", "-qam", "rbac")
    p = run_cli("check", "--changed-since", "HEAD~1", "--allow-empty", "--format", "json", cwd=root)
    assert p.returncode == 0, p.stdout + p.stderr
    rep = json.loads(p.stdout)
    assert rep["bundles"] == [] and rep["findings"] == []


def test_a_commit_touching_the_root_dockerfile_checks_its_bundle(tmp_path):
    root = project(tmp_path)
    (root / "bundle.Dockerfile").write_text(ROOT_DOCKERFILE.format(channels="beta"))
    git(root, "commit", "-qam", "channels")
    code, rep = check_json(root, "--changed-since", "HEAD~1")
    assert [b["path"] for b in rep["bundles"]] == ["bundle"]
    # (yaml-lint, the catalog pipelines' linter of a submitted bundle, says only info here)
    assert [(f["path"], f["rule"]) for f in rep["findings"] if f["severity"] != "info"] == [("bundle.Dockerfile", "bundle-annotations")]


def test_naming_config_is_refused_with_the_reason(tmp_path):
    root = project(tmp_path)
    for path in ("config", "config/rbac/role.yaml", "config/manifests"):
        p = run_cli("check", path, cwd=root)
        assert p.returncode == 2, (path, p.stdout)
        assert "never a bundle" in p.stderr and "bundle/" in p.stderr, p.stderr
        assert run_cli("check", path, "--allow-empty", cwd=root).returncode == 0


def test_fix_keeps_the_root_dockerfile_in_sync(tmp_path):
    root = project(tmp_path)
    ann, df = root / "bundle" / "metadata" / "annotations.yaml", root / "bundle.Dockerfile"
    ann.write_text(ann.read_text().replace('com.redhat.openshift.versions: "v4.14"', 'com.redhat.openshift.versions: "4.14"'))
    df.write_text(df.read_text().replace('openshift.versions="v4.14"', 'openshift.versions="4.14"'))
    p = run_cli("fix", cwd=root)
    assert p.returncode == 0, p.stderr
    assert "bundle.Dockerfile:10: LABEL com.redhat.openshift.versions changed alike" in p.stdout, p.stdout
    assert git(root, "status", "--porcelain") == ""  # both back to what make bundle wrote


def test_exclude_setting_leaves_out_other_layouts(tmp_path):
    root = project(tmp_path)
    shutil.copytree(root / "bundle", root / "deploy" / "olm-legacy")
    code, rep = check_json(root)
    assert [b["path"] for b in rep["bundles"]] == ["bundle", "deploy/olm-legacy"]
    (root / ".olm-check.yaml").write_text("exclude:\n  - deploy/olm-legacy/\n")
    code, rep = check_json(root)
    assert [b["path"] for b in rep["bundles"]] == ["bundle"]
    # named files of an excluded directory (what pre-commit passes) are left out too
    p = run_cli("check", "deploy/olm-legacy/metadata/annotations.yaml", cwd=root)
    assert p.returncode == 2 and "nothing to check" in p.stderr


@pytest.mark.parametrize("pattern,path,is_dir,hit", [
    ("deploy/", "deploy", True, True),
    ("deploy/", "deploy", False, False),  # a file named deploy: a directory pattern does not match it
    ("deploy/", "x/deploy/a.yaml", False, True),  # no slash before the end: any depth
    ("/deploy", "x/deploy", True, False),  # anchored
    ("deploy/legacy", "deploy/legacy/manifests/a.yaml", False, True),
    ("deploy/legacy", "x/deploy/legacy", True, False),
    ("*.tmpl.yaml", "bundle/manifests/csv.tmpl.yaml", False, True),
    ("*.tmpl.yaml", "bundle/manifests/csv.yaml", False, False),
    ("hack/**/bundle", "hack/a/b/bundle", True, True),
    ("hack/**/bundle", "hack/bundle", True, True),
    ("bundle-?", "bundle-1", True, True),
    ("bundle-[0-9]", "bundle-x", True, False),
    ("**/old", "a/b/old/manifests", True, True),
])
def test_exclude_patterns_are_gitignore_style(pattern, path, is_dir, hit):
    assert Excludes([pattern]).match(path, is_dir) is hit


def test_exclude_negation_and_comments():
    ex = Excludes(["# old bundles", "", "deploy/*", "!deploy/current"])
    assert ex.match("deploy/old", True) and not ex.match("deploy/current", True)
    assert ex.match("deploy/old/manifests/a.yaml") and not ex.match("deploy/current/manifests/a.yaml")
    assert not Excludes([]).match("anything")


def test_exclude_setting_is_validated():
    assert parse_config({"exclude": "deploy/"}).exclude.patterns == ["deploy/"]
    with pytest.raises(ConfigError, match="exclude must be a list of gitignore-style patterns"):
        parse_config({"exclude": {"deploy": True}})


def test_layout_helpers(tmp_path):
    assert in_config_sources("config/manifests") and in_config_sources("a/config/rbac/role.yaml")
    assert not in_config_sources("operators/config/1.0.0") and not in_config_sources("configs/x")
    root = project(tmp_path)
    assert dockerfile_bundle(str(root / "bundle.Dockerfile")) == str(root / "bundle")
    assert dockerfile_bundle(str(root / "Dockerfile")) is None  # the operator's own image
    assert bundle_dockerfile(str(root / "bundle")) == str(root / "bundle.Dockerfile")
    (root / "bundle.Dockerfile").write_text("FROM scratch\nCOPY elsewhere/manifests /manifests/\n")
    assert dockerfile_bundle(str(root / "bundle.Dockerfile")) is None
    assert bundle_dockerfile(str(root / "bundle")) is None


def test_text_is_grouped_by_file_and_wraps_without_cutting(tmp_path):
    root = project(tmp_path, channels="a-channel-name-long-enough-to-need-wrapping-" + "x" * 70)
    p = run_cli("check", env={"COLUMNS": "80"}, cwd=root)
    lines = p.stdout.splitlines()
    assert lines[0] == "bundle.Dockerfile"  # the path once
    assert lines[1].startswith("  8:7  warning  the LABEL")
    finding = []
    for line in lines[1:]:
        if not line:
            break
        finding.append(line)
    assert len(finding) > 1 and all(l.startswith(" " * 16) and l[16] != " " for l in finding[1:])  # under the message
    text = " ".join(l.strip() for l in finding)
    assert "x" * 70 in text and "…" not in text  # nothing cut
    assert text.endswith("  bundle-annotations")
    assert all(len(l) <= 80 for l in finding if "x" * 70 not in l)
    # the one-line form, for editors and grep
    c = run_cli("check", "--output-format", "concise", cwd=root)
    first = c.stdout.splitlines()[0]
    assert first.startswith("bundle.Dockerfile:8:7: warning bundle-annotations the LABEL channels=") and "x" * 70 in first


def test_files_and_bundles_sort_as_versions(tmp_path):
    for v in ("7.100.0", "7.87.0", "7.9.0"):
        shutil.copytree(GOOD, tmp_path / "bundles" / v)
    p = run_cli("check", "bundles", cwd=tmp_path)
    order = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("bundle ")]
    assert order == ["bundles/7.9.0:", "bundles/7.87.0:", "bundles/7.100.0:"], p.stdout


def test_fix_select_and_ignore(tmp_path):
    root = project(tmp_path)
    ann = root / "bundle" / "metadata" / "annotations.yaml"
    broken = ann.read_text().replace('com.redhat.openshift.versions: "v4.14"', 'com.redhat.openshift.versions: "4.14"')
    ann.write_text(broken)
    p = run_cli("fix", "--ignore", "ocp-versions-style", cwd=root)
    assert p.returncode == 0 and "nothing to fix" in p.stdout, p.stdout
    assert ann.read_text() == broken
    p = run_cli("fix", "--select", "csv-", cwd=root)
    assert ann.read_text() == broken
    p = run_cli("fix", "--select", "ocp-versions", cwd=root)
    assert "fixed ocp-versions-style" in p.stdout and ann.read_text() != broken
    p = run_cli("fix", "--select", "no-such-rule", cwd=root)
    assert p.returncode == 2 and "not a rule id" in p.stderr


def test_a_mistyped_path_gets_a_did_you_mean(tmp_path):
    root = project(tmp_path)
    p = run_cli("check", "bundel", cwd=root)
    assert p.returncode == 2 and "bundel: no such file or directory (did you mean 'bundle'?)" in p.stderr
    p = run_cli("bundle/manfests", cwd=root)
    assert p.returncode == 2 and "(did you mean 'bundle/manifests'?)" in p.stderr
    p = run_cli("--output-format", "concise", cwd=root)  # an option of check's: check .
    assert p.returncode == 0 and "1 bundle(s) checked" in p.stdout
