"""The reference good bundle (fixtures/bundles/good) is clean under every profile: every
rule must accept a correct, complete bundle (rules that cry wolf get switched off)."""
import pytest

from checker.api import check
from checker.rules import PROFILES


@pytest.mark.parametrize("profile", PROFILES)
def test_good_bundle_has_no_findings(copy_fixture, profile):
    copy_fixture("bundles/good")
    res = check(["."], profile=profile)
    assert [(f.rule, f.path, f.line, f.message) for f in res.findings] == []
    assert res.exit_code == 0
    b = res.report["bundles"][0]
    assert b["csv"] == "example-operator.v1.0.0"
    assert b["ocp_label"] == "v4.14"
