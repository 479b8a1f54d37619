"""olm-check upgradeable: OLM's Upgradeable verdict (today's code) and the enhancement's
three-state proposed view (versions.md table)."""
import json
import os

from conftest import FIXTURES
from helpers import run_cli

UP = os.path.join(FIXTURES, "rules", "upgrade-blocker", "bad")         # max "4.16"
NONE = os.path.join(FIXTURES, "bundles", "good")                        # no max
TWICE = os.path.join(FIXTURES, "rules", "max-ocp-version-ambiguous", "bad")  # two declarations
FLOAT = os.path.join(FIXTURES, "rules", "max-ocp-version-syntax", "bad")     # value: 4.20 unquoted
SHORT_BUILD = os.path.join(FIXTURES, "rules", "max-ocp-version-syntax", "bad-short-build")  # value: "4.16+build"


def verdict(cluster, *paths):
    p = run_cli("upgradeable", "--cluster-version", cluster, "--format", "json", *paths)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def test_all_compatible_is_ready_for_upgrade():
    rc, v = verdict("4.15", UP)
    assert rc == 0 and v["today"]["upgradeable"] is True
    # OLM's setUpgradeable (openshift/clusteroperator_controller.go) sets Upgradeable=True with no
    # message ("Safe to upgrade" is the packageserver ClusterOperator's csv_reporter.go)
    assert v["today"]["message"] == "" and "reason" not in v["today"]
    assert v["proposed"] == {"status": "Upgradeable", "message": "Ready for upgrade"}


def test_no_max_is_indeterminate_in_the_proposed_view_only():
    rc, v = verdict("4.15", UP, NONE)
    assert rc == 0 and v["today"]["upgradeable"] is True
    assert v["proposed"]["status"] == "Upgradeable"
    assert v["proposed"]["message"] == "The following operators may not run on the next OpenShift Version: placeholder/example-operator.v1.0.0"


def test_max_at_cluster_version_blocks_with_olms_message():
    # skews.String() in operator-lifecycle-manager pkg/controller/operators/openshift/helpers.go
    # (hard-coded by 73a22057 of 2026-01-26, kept by 1bf19cc9 of 2026-04-03; HEAD 992bb097)
    rc, v = verdict("4.16", UP, NONE)
    assert rc == 1 and v["today"]["upgradeable"] is False
    assert v["today"]["reason"] == "IncompatibleOperatorsInstalled"
    assert v["today"]["message"] == (
        "ClusterServiceVersions blocking minor version upgrades to 4.23 or major version upgrades to 5.0:\n"
        "- maximum supported OCP version for placeholder/example-operator.v1.0.0 is 4.16")
    assert v["proposed"]["status"] == "Not Upgradeable"
    assert v["proposed"]["message"].startswith("The following operators will not run on the next OpenShift Version:")


def test_invalid_declarations_come_first_and_block():
    rc, v = verdict("4.10", UP, TWICE)
    assert rc == 1
    msg = v["today"]["message"].split("\n", 1)[1]
    assert msg.startswith('- placeholder/example-operator.v1.0.0 has invalid olm.maxOpenShiftVersion properties: defining more than one')


def test_unquoted_yaml_float_is_what_olm_sees():
    # value: 4.20 in properties.yaml reaches OLM as 4.2: a 4.10 cluster is blocked
    rc, v = verdict("4.10", FLOAT)
    assert rc == 1
    assert v["csvs"][0]["max_openshift_version"] == "4.2"


def test_build_metadata_on_a_short_version_is_invalid():
    # blang ParseTolerant refuses "4.16+build" (a short version with build metadata): invalid, blocks
    rc, v = verdict("4.10", SHORT_BUILD)
    assert rc == 1
    assert v["csvs"][0]["max_openshift_version"] is None
    assert v["csvs"][0]["invalid"].startswith('failed to parse "4.16+build" as semver')


def test_csv_file_path_and_usage_errors():
    csv = os.path.join(UP, "manifests", "example-operator.clusterserviceversion.yaml")
    rc, v = verdict("4.16", csv)
    assert rc == 0  # the CSV alone has no max: properties.yaml is not part of it
    p = run_cli("upgradeable", "--cluster-version", "four", UP)
    assert p.returncode == 2 and "not an OpenShift version" in p.stderr
    p = run_cli("upgradeable", "--cluster-version", "4.16", "/nonexistent/bundle")
    assert p.returncode == 2 and "Traceback" not in p.stderr


JSON_FLOAT = os.path.join(FIXTURES, "rules", "max-ocp-version-syntax", "bad-csv-json-float")  # olm.properties "value": 4.10


def test_json_number_in_olm_properties_is_read_as_written():
    # OLM holds the property's raw JSON text: "value": 4.10 is max 4.10, not the float 4.1
    rc, v = verdict("4.10", JSON_FLOAT)
    assert rc == 1
    c = v["csvs"][0]
    assert c["max_openshift_version"] == "4.10" and c["invalid"] is None
    assert c["notes"] == ["olm.properties has the JSON number 4.10: OLM reads 4.10 as written, JSON and YAML tools read 4.1"]
    rc, v = verdict("4.9", JSON_FLOAT)
    assert rc == 0 and v["today"]["upgradeable"] is True


def test_unquoted_yaml_float_says_both_readings():
    p = run_cli("upgradeable", "--cluster-version", "4.10", FLOAT)
    assert p.returncode == 1, p.stderr
    assert "note: properties.yaml has the unquoted number 4.20: 4.20 as written; YAML reads 4.2" in p.stdout


def test_4_23_and_5_0_are_one_release(tmp_path):
    # OLM's normalizeOCPVersion: a max "4.23" lets a 4.22 cluster upgrade to 5.0, and a 4.23
    # cluster is a 5.0 one, whose next release is 5.1
    import shutil

    for value, cluster, rc_want in (("4.23", "4.22", 0), ("5.0", "4.22", 0), ("4.23", "4.23", 1), ("4.22", "4.22", 1),
                                    ("4.23", "5.0", 1), ("5.0", "4.23", 1)):
        d = tmp_path / f"b-{value}-{cluster}"
        shutil.copytree(UP, d)
        (d / "metadata" / "properties.yaml").write_text(
            f'properties:\n  - type: olm.maxOpenShiftVersion\n    value: "{value}"\n')
        rc, v = verdict(cluster, str(d))
        assert rc == rc_want, (value, cluster, v)
        if cluster in ("4.23", "5.0"):
            assert v["next_minor"] == "5.1"


INSTALLED = os.path.join(FIXTURES, "upgradeable")


def test_installed_csv_is_read_from_operatorframework_io_properties():
    # max came from the bundle's metadata/properties.yaml: on the cluster it is in the annotation OLM's resolver writes
    rc, v = verdict("4.16", os.path.join(INSTALLED, "installed-max.clusterserviceversion.yaml"))
    assert rc == 1 and v["today"]["upgradeable"] is False
    assert v["today"]["message"].endswith("- maximum supported OCP version for operators/example-operator.v1.0.0 is 4.16")
    rc, v = verdict("4.15", os.path.join(INSTALLED, "installed-max.clusterserviceversion.yaml"))
    assert rc == 0 and v["csvs"][0]["max_openshift_version"] == "4.16"


def test_installed_csv_olm_properties_is_not_read():
    rc, v = verdict("4.16", os.path.join(INSTALLED, "installed-no-max.clusterserviceversion.yaml"))
    assert rc == 0 and v["today"]["upgradeable"] is True
    assert v["csvs"][0]["max_openshift_version"] is None
    assert any("operatorframework.io/properties annotation only" in n for n in v["csvs"][0]["notes"])


def test_installed_annotation_that_is_not_an_object_is_invalid():
    rc, v = verdict("4.10", os.path.join(INSTALLED, "installed-broken.clusterserviceversion.yaml"))
    assert rc == 1
    assert "has invalid olm.maxOpenShiftVersion properties: failed to unmarshal properties annotation" in v["today"]["message"]
