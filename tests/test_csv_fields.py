"""csv-unknown-field (checker/rules/csv/csv_unknown_field.py) and the CSV shapes the content rules must
survive: the one-line rename of a slip, a field one level off, annotations written as fields,
and a spec that is null, a string or a list (one csv-required-fields error at the key).

Each test checks the reference good bundle with one edit, on disk, as a user would."""
import pytest

from checker.api import check
from checker.rules import PROFILES

from conftest import GOOD_CSV as CSV


@pytest.fixture
def bundle(edit_good_csv):
    """The good bundle in a fresh directory; returns edit((old, new), ..., profile) -> result."""
    return edit_good_csv


def _of(res, rule):
    return [f for f in res.findings if f.rule == rule]


def test_case_slip_gets_a_rename_fix(bundle):
    res = bundle(("  minKubeVersion: 1.27.0\n", "  MinKubeVersion: 1.27.0  # as strimzi writes it\n"))
    (f,) = _of(res, "csv-unknown-field")
    assert (f.severity, f.line, f.column) == ("warning", 29, 3)
    assert f.fix.replacement == "  minKubeVersion: 1.27.0  # as strimzi writes it"


def test_no_rename_fix_when_the_right_key_is_already_there(bundle):
    res = bundle(("  minKubeVersion: 1.27.0\n", "  minKubeVersion: 1.27.0\n  MinKubeVersion: 1.20.0\n"))
    (f,) = _of(res, "csv-unknown-field")
    assert f.line == 30 and f.fix is None and "'minKubeVersion'" in f.message


@pytest.mark.parametrize("old,new,line,says", [
    ("  namespace: placeholder\n", "  namespace: placeholder\n  minKubeVersion: 1.27.0\n", 6, "spec.minKubeVersion"),
    ("kind: ClusterServiceVersion\n", "kind: ClusterServiceVersion\nrelatedImages: []\n", 3, "spec.relatedImages"),
    ("  namespace: placeholder\n", "  namespace: placeholder\n  capabilities: Basic Install\n", 6, "metadata.annotations"),
    ("  maturity: stable\n", "  maturity: stable\n  maxKubeVersion: 1.30.0\n", 31, "olm.maxOpenShiftVersion"),
    ("  maturity: stable\n", "  maturity: stable\n  operators.operatorframework.io.bundle.channels.v1: stable\n", 31, "metadata/annotations.yaml"),
    ("  maturity: stable\n", "  maturity: stable\n  frobnicate: true\n", 31, "Remove it"),
])
def test_what_was_meant(bundle, old, new, line, says):
    res = bundle((old, new))
    (f,) = _of(res, "csv-unknown-field")
    assert (f.line, f.column) == (line, 3 if line != 3 else 1) and says in f.message + f.detail and f.fix is None  # what was meant: message or detail


def test_every_field_of_the_type_is_known(bundle):
    res = bundle(("  maturity: stable\n", "  maturity: stable\n  release: \"1\"\n  cleanup: {enabled: true}\n  skips: []\n"
                  "  nativeAPIs: []\n  webhookdefinitions: []\n  apiservicedefinitions: {}\n  annotations: {a: b}\n"),
                 ("  namespace: placeholder\n", "  namespace: placeholder\n  finalizers: []\n  ownerReferences: []\n"))
    assert not _of(res, "csv-unknown-field")


@pytest.mark.parametrize("spec,what", [("spec:\n", "empty (null)"), ("spec: to be written\n", "a string"), ("spec: [a, b]\n", "a list")])
def test_a_spec_that_is_not_a_mapping_is_one_required_fields_error(copy_fixture, spec, what):
    copy_fixture("bundles/good")
    with open(CSV, encoding="utf-8") as fh:
        text = fh.read()
    with open(CSV, "w", encoding="utf-8") as fh:
        fh.write(text[:text.index("\nspec:") + 1] + spec)
    for p in PROFILES:
        res = check(["."], profile=p)
        assert not [f for f in res.findings if f.rule == "internal-error"], [f.message for f in res.findings]
        req = _of(res, "csv-required-fields")
        if p == "minimal":
            continue
        assert [(f.severity, f.line, f.column) for f in req] == [("error", 24, 1)], [f.message for f in req]
        assert f"spec is {what}" in req[0].message and "spec.install" in req[0].detail
