"""The reference good bundle (fixtures/bundles/good) is clean under every profile: every
rule must accept a correct, complete bundle (rules that cry wolf get switched off)."""
import pytest

from checker.api import check
from checker.rules import PROFILES


@pytest.mark.parametrize("profile", PROFILES)
def test_good_bundle_has_no_findings(copy_fixture, profile):
    copy_fixture("bundles/good")
    if profile == "marketplace":  # a marketplace bundle carries its package's marketplace URLs (check_marketplace_annotation)
        csv = "manifests/example-operator.clusterserviceversion.yaml"
        base = "https://marketplace.redhat.com/en-us/operators/example-operator"
        with open(csv) as fh:
            text = fh.read()
        with open(csv, "w") as fh:
            fh.write(text.replace("  annotations:\n", "  annotations:\n"
                                  f"    marketplace.openshift.io/remote-workflow: {base}/pricing?utm_source=openshift_console\n"
                                  f"    marketplace.openshift.io/support-workflow: {base}/support?utm_source=openshift_console\n", 1))
    res = check(["."], profile=profile)
    assert [(f.rule, f.path, f.line, f.message) for f in res.findings] == []
    assert res.exit_code == 0
    b = res.report["bundles"][0]
    assert b["csv"] == "example-operator.v1.0.0"
    assert b["ocp_label"] == "v4.14"
