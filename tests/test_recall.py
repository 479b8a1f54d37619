"""Recall: each static refusal a gate makes (docs/recall.md, read from the gates' code) is
reported as an error naming that gate.

Each case starts from a clean fixture (the reference good bundle, or the FBC catalog
repository base), makes the one change the gate refuses, and checks it as a user would: the
result must hold an error of the rule, naming the gate; the clean fixture must not report
that error (so the case fails without the check)."""
import os
import shutil

import pytest
import yaml

from checker.api import check

from conftest import FIXTURES

CI = "operators/example-operator/ci.yaml"
CRD = "manifests/example.com_widgets.yaml"
CSV = "manifests/example-operator.clusterserviceversion.yaml"


def _edit(path, old, new):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert text.count(old) == 1, f"{path}: {old!r} must occur exactly once"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new))


def _append(path, text):
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


def _write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _fbc_repo(dest):
    """The FBC catalog repository base (fixtures/rules/fbc-bundle-object/good, itself the
    fbc-operator base): operators/example-operator with catalogs v4.16 and v4.17."""
    shutil.copytree(os.path.join(FIXTURES, "rules", "fbc-bundle-object", "good"), dest)
    os.remove(os.path.join(dest, "expect.yaml"))


def _bundle(dest):
    shutil.copytree(os.path.join(FIXTURES, "bundles", "good"), dest)


# (case id, fixture, mutation, profile, rule, kind or None, gate id). Each is a row of docs/recall.md.
CASES = [
    ("ci-cert-project-id-type", _fbc_repo, lambda: _append(CI, "cert_project_id: 123456\n"), None,
     "ci-config", None, "check_schema_operator_ci_config"),
    ("ci-catalog-mapped-twice", _fbc_repo,
     lambda: _append(CI, "    - template_name: other.yaml\n      type: olm.template.basic\n      catalog_names: [\"v4.16\"]\n"),
     None, "ci-config", "catalog-twice", "check_catalog_usage_ci_config"),
    ("ci-fbc-update-graph", _fbc_repo, lambda: _append(CI, "updateGraph: replaces-mode\n"), None,
     "ci-config", "fbc-update-graph", "read-config"),
    ("fbc-bundle-image-registry", _fbc_repo,
     lambda: _write("config.yaml", "organization: community-operators\nallowed_bundle_registries:\n"
                    "  - quay.io/community-operator-pipeline-prod/\n"), None,
     "fbc-bundle-registry", None, "check_bundle_images_in_fbc"),
    ("manifests-hidden-file", _bundle, lambda: _write("manifests/.notes.yaml", "kind: ConfigMap\n"), None,
     "bundle-layout", "hidden-file", "bundle-validate"),
    ("crd-api-version", _bundle, lambda: _edit(CRD, "apiextensions.k8s.io/v1\n", "apiextensions.k8s.io/v2\n"), None,
     "crd-invalid", "api-version", "bundle-validate"),
    ("crd-scope", _bundle, lambda: _edit(CRD, "scope: Namespaced", "scope: Namespace"), None,
     "crd-invalid", None, "bundle-validate"),
    ("dependency-package-version", _bundle,
     lambda: _write("metadata/dependencies.yaml", "dependencies:\n  - type: olm.package\n    value:\n"
                    "      packageName: etcd\n      version: latest\n"), None,
     "dependency-invalid", None, "bundle-format-validate"),
    ("dependency-gvk-group", _bundle,
     lambda: _write("metadata/dependencies.yaml", "dependencies:\n  - type: olm.gvk\n    value:\n"
                    "      kind: EtcdCluster\n      version: v1beta2\n"), None,
     "dependency-invalid", None, "bundle-format-validate"),
    ("label-value-spaces", _bundle,
     lambda: _edit(CSV, "  namespace: placeholder\n", "  namespace: placeholder\n  labels:\n    tier: example operator\n"),
     None, "manifest-invalid", "label-value", "api-server"),
    ("label-value-spaces-certified", _bundle,
     lambda: _edit(CSV, "  namespace: placeholder\n", "  namespace: placeholder\n  labels:\n    tier: example operator\n"),
     "certified", "manifest-invalid", "label-value", "api-server"),
    ("provider-name-missing-operatorhub", _bundle, lambda: _edit(CSV, "    name: Example Inc.\n", ""), "operatorhub",
     "csv-required-fields", "hub", "operatorhub-validator"),
    ("provider-name-missing-certified", _bundle, lambda: _edit(CSV, "    name: Example Inc.\n", ""), "certified",
     "csv-required-fields", "hub", "operatorhub-validator"),
    ("version-missing-operatorhub", _bundle, lambda: _edit(CSV, "  version: 1.0.0\n", ""), "operatorhub",
     "csv-required-fields", "hub", "operatorhub-validator"),
]


def _errors(res, rule, kind):
    return [f for f in res.findings if f.rule == rule and f.severity == "error" and (kind is None or f.kind == kind)]


@pytest.mark.parametrize("case,fixture,mutate,profile,rule,kind,gate", CASES, ids=[c[0] for c in CASES])
def test_refusal_is_an_error_naming_its_gate(case, fixture, mutate, profile, rule, kind, gate, tmp_path, monkeypatch):
    clean = tmp_path / "clean"
    fixture(str(clean))
    monkeypatch.chdir(clean)
    before = _errors(check(["."], profile=profile), rule, kind)
    assert not before, f"{case}: the clean fixture already reports {[f.message for f in before]}"
    mutated = tmp_path / "mutated"
    fixture(str(mutated))
    monkeypatch.chdir(mutated)
    mutate()
    res = check(["."], profile=profile)
    assert not [f for f in res.findings if f.rule == "internal-error"]
    got = _errors(res, rule, kind)
    assert got, f"{case}: no {rule} error; findings: {[(f.rule, f.severity, f.message) for f in res.findings]}"
    assert any((f.gate or {}).get("id") == gate for f in got), \
        f"{case}: the error names {[(f.gate or {}).get('id') for f in got]}, not {gate}"


def test_recall_table_lists_every_case():
    """docs/recall.md holds a row for each case here (its id in the last column)."""
    from conftest import ROOT

    with open(os.path.join(ROOT, "docs", "recall.md"), encoding="utf-8") as fh:
        text = fh.read()
    for c in CASES:
        assert f"`{c[0]}`" in text, f"docs/recall.md has no row for {c[0]}"
    # the table names only gates the data knows
    with open(os.path.join(ROOT, "checker", "data", "gates.yaml"), encoding="utf-8") as fh:
        gates = yaml.safe_load(fh)["gates"]
    for c in CASES:
        assert c[6] in gates, c
