"""The pre-commit hooks (.pre-commit-hooks.yaml): their ``files``/``exclude`` patterns, applied
as pre-commit applies them (``re.search`` on repository-relative paths), match bundle trees
(operator-sdk's bundle/, a catalog repository's operators/ and catalogs/) and not the
operator-sdk/kubebuilder sources a project keeps next to them (config/, the operator's own
Dockerfile, Go code); and the hook's command runs on what pre-commit passes."""
import os
import re
import shutil

import pytest
import yaml

from helpers import ROOT, run_cli
from trees import GOOD

with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as fh:
    HOOKS = yaml.safe_load(fh)

MATCH = [
    # operator-sdk project: `make bundle` output
    "bundle/manifests/memcached-operator.clusterserviceversion.yaml",
    "bundle/manifests/cache.example.com_memcacheds.yaml",
    "bundle/manifests/memcached-operator-controller-manager-metrics-service_v1_service.yaml",
    "bundle/metadata/annotations.yaml",
    "bundle/metadata/dependencies.yaml",
    "bundle.Dockerfile",
    # community-operators(-prod) / certified-operators layout
    "operators/etcd/0.9.4/manifests/etcdoperator.v0.9.4.clusterserviceversion.yaml",
    "operators/etcd/0.9.4/metadata/annotations.yaml",
    "operators/etcd/0.9.4/metadata/properties.yaml",
    "operators/etcd/0.9.4/Dockerfile",
    "operators/etcd/0.9.4/bundle.Dockerfile",
    "operators/etcd/ci.yaml",
    "catalogs/v4.16/etcd/catalog.yaml",
    "catalogs/v4.16/etcd/catalog.json",
    "operators/config/1.0.0/manifests/config.clusterserviceversion.yaml",  # an operator named config
    # a bundle kept elsewhere in a repository
    "deploy/olm-catalog/bundle/manifests/foo.crd.yaml",
]

NO_MATCH = [
    # kubebuilder / operator-sdk sources: inputs of `make bundle`, not bundles
    "config/manifests/kustomization.yaml",
    "config/manifests/bases/memcached-operator.clusterserviceversion.yaml",
    "config/crd/bases/cache.example.com_memcacheds.yaml",
    "config/crd/kustomization.yaml",
    "config/rbac/role.yaml",
    "config/manager/manager.yaml",
    "config/samples/cache_v1alpha1_memcached.yaml",
    "config/scorecard/bases/config.yaml",
    "config/default/kustomization.yaml",
    "operator/config/manifests/kustomization.yaml",  # a project in a subdirectory
    "Dockerfile",  # the operator's own image
    "Makefile",
    "PROJECT",
    "main.go",
    "api/v1alpha1/memcached_types.go",
    "internal/controller/memcached_controller.go",
    "go.mod",
    ".github/workflows/ci.yaml",
    "README.md",
    "operators/etcd/0.9.4/manifests/README.md",
    "helm-charts/foo/templates/deployment.yaml",
    "catalogs/v4.16/README.md",
]


def selected(hook: dict, path: str) -> bool:
    """pre-commit's filter: ``files`` searched, then ``exclude`` searched."""
    return bool(re.search(hook["files"], path)) and not (hook.get("exclude") and re.search(hook["exclude"], path))


@pytest.mark.parametrize("hook", HOOKS, ids=[h["id"] for h in HOOKS])
def test_hook_matches_bundle_trees(hook):
    assert [p for p in MATCH if not selected(hook, p)] == []


@pytest.mark.parametrize("hook", HOOKS, ids=[h["id"] for h in HOOKS])
def test_hook_leaves_operator_sources_alone(hook):
    assert [p for p in NO_MATCH if selected(hook, p)] == []


def test_hooks_agree():
    assert len({(h["files"], h.get("exclude")) for h in HOOKS}) == 1
    assert all("--allow-empty" in h["entry"].split() for h in HOOKS)


def _project(tmp_path):
    """An operator-sdk project: config/ sources and a generated bundle/."""
    root = tmp_path / "project"
    shutil.copytree(GOOD, root / "bundle")
    os.makedirs(root / "config" / "manifests")
    (root / "config" / "manifests" / "kustomization.yaml").write_text("resources:\n- ../default\n- ../samples\n")
    (root / "Dockerfile").write_text("FROM scratch\n")
    return root


def test_hook_command_on_what_pre_commit_passes(tmp_path):
    root = _project(tmp_path)
    hook = HOOKS[0]
    files = [p for p in ("bundle/metadata/annotations.yaml", "bundle/bundle.Dockerfile", "config/manifests/kustomization.yaml", "Dockerfile")
             if selected(hook, p)]
    assert files == ["bundle/metadata/annotations.yaml", "bundle/bundle.Dockerfile"]
    args = hook["entry"].split()[1:]  # olm-check check --allow-empty
    p = run_cli(*args, *files, cwd=root)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 bundle(s) checked" in p.stdout


def test_ci_yaml_and_catalog_files_check_their_operator(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(GOOD, repo / "operators" / "example-operator" / "1.0.0")
    (repo / "operators" / "example-operator" / "ci.yaml").write_text("updateGraph: replaces-mode\nreviewers: [someone]\n")
    os.makedirs(repo / "catalogs" / "v4.16" / "example-operator")
    (repo / "catalogs" / "v4.16" / "example-operator" / "catalog.yaml").write_text("schema: olm.package\nname: example-operator\n")
    args = HOOKS[0]["entry"].split()[1:]
    for f in ("operators/example-operator/ci.yaml", "catalogs/v4.16/example-operator/catalog.yaml"):
        assert selected(HOOKS[0], f)
        p = run_cli(*args, f, "--format", "json", cwd=repo)
        assert p.returncode in (0, 1), p.stderr
        assert "operators/example-operator/1.0.0" in p.stdout, (f, p.stdout)


def test_fix_hook_fixes_what_pre_commit_passes(tmp_path):
    hook = next(h for h in HOOKS if h["id"] == "olm-check-fix")
    root = _project(tmp_path)
    ann = root / "bundle" / "metadata" / "annotations.yaml"
    ann.write_text(ann.read_text().replace('com.redhat.openshift.versions: "v4.14"', 'com.redhat.openshift.versions: "4.14"'))
    args = hook["entry"].split()[1:]  # olm-check fix --allow-empty
    p = run_cli(*args, "bundle/metadata/annotations.yaml", cwd=root)
    assert p.returncode == 0, p.stderr
    assert 'com.redhat.openshift.versions: "v4.14"' in ann.read_text()
    p = run_cli(*args, "config/manifests/kustomization.yaml", cwd=root)  # were it passed: nothing to do, no failure
    assert p.returncode == 0, p.stderr
