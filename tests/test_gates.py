"""Severities from the gates (checker/gates.py, checker/data/gates.yaml, verdicts.yaml): an
error exactly where a gate on the target catalog's route refuses the finding; the catalog
repository's config.yaml chooses the target and waives checks; findings about end-of-life
releases only are info."""
import glob
import json
import os
import re
import shutil

import pytest

from checker import gates
from checker.rules import PROFILES, RULES, load_all

from conftest import FIXTURES, ROOT
from helpers import run_cli, run_json


def test_every_gate_named_in_the_verdicts_exists_and_every_error_rule_has_verdicts():
    load_all()
    t = gates.tables()
    assert set(t.targets) == set(gates.TARGETS) == set(PROFILES)
    for rid, kinds in t.kinds.items():
        assert rid in RULES, f"verdicts.yaml: unknown rule {rid}"
        assert "" in kinds, f"verdicts.yaml: {rid} has no default kind"
        for kid, k in kinds.items():
            for g in k.refused_by + k.warned_by:
                assert g in t.gates, f"verdicts.yaml: {rid}/{kid or 'default'} names unknown gate {g}"
    for g in t.gates.values():
        assert g.source and g.does, g.id
        for x in g.targets or ():
            assert x in t.targets, (g.id, x)
    # every rule is judged by the gates' data: rule code names no severity
    missing = sorted(r.id for r in RULES.values() if r.id not in t.kinds)
    assert missing == [], f"rules without an entry in verdicts.yaml: {missing}"


def test_every_kind_the_rule_code_names_is_judged_by_the_data():
    kinds = {k for ks in gates.tables().kinds.values() for k in ks}
    files = glob.glob(os.path.join(ROOT, "checker", "rules", "**", "*.py"), recursive=True)
    assert len(files) > 40
    for p in files:
        with open(p, encoding="utf-8") as fh:
            text = fh.read()
        for k in re.findall(r'\bkind="([a-z0-9-]+)"', text):
            assert k in kinds, f"{os.path.basename(p)}: kind {k!r} is in no verdicts.yaml entry"
        assert not re.search(r"\bseverity\s*=(?!=)", text), f"{os.path.basename(p)}: rule code picks a severity; name a kind instead"
        assert not re.search(r"\bsaid\(|\bSaid\b|split_message", text), f"{os.path.basename(p)}: write the message and detail out"
        assert "ctx.profile" not in text, f"{os.path.basename(p)}: rule code branches on the target"


def test_judge_follows_the_route_waivers_and_end_of_life():
    j = gates.judge
    # community's check_required_fields refuses a CSV without maintainers; the certified pipelines do not run it
    assert j("csv-required-fields", "community", "community").severity == "error"
    assert j("csv-required-fields", "community", "certified").severity == "warning"
    # documented by Red Hat's certification docs only: a warning there, nothing elsewhere
    assert j("csv-required-fields", "certification", "certified").severity == "warning"
    assert j("csv-required-fields", "certification", "marketplace").severity == "warning"
    assert j("csv-required-fields", "certification", "community").severity is None
    # preflight's RequiredAnnotations is enforced for the certified targets only
    assert j("feature-annotations-required", "", "certified").severity == "error"
    assert j("feature-annotations-required", "", "community").severity is None
    # a waived check gates nothing for the operators it names (re.match, as apply_test_waivers)
    cat = gates.Catalog(organization="certified-operators", waivers=[("check_operator_version_directory_name", ["^t8c"])])
    v = j("csv-version-directory", "", "certified", operator="t8c-certified", catalog=cat)
    assert v.severity == "warning" and v.note == "waived"
    assert j("csv-version-directory", "", "certified", operator="other-op", catalog=cat).severity == "error"
    # only release-bound gates refuse, and only end-of-life releases are concerned: info
    live = {"4.14", "4.15"}
    v = j("removed-api", "", "certified", releases=["4.12", "4.13"], live=live)
    assert v.severity == "info" and v.note == "end-of-life"
    assert j("removed-api", "", "certified", releases=["4.13", "4.14"], live=live).severity == "error"
    assert j("removed-api", "", "certified", releases=["4.12"], live=live, pinned=True).severity == "error"
    # a gate that is not release-bound refuses whatever the releases (community's check_api_version_constraints)
    assert j("min-kube-version-range", "", "community", releases=["4.8"], live=live).severity == "error"
    assert j("min-kube-version-range", "", "certified", releases=["4.8"], live=live).severity == "info"
    # the pipeline skips its @skip_fbc checks for an operator with file-based catalogs
    assert j("min-kube-version-range", "", "community", releases=["4.8"], live=live, fbc=True).severity == "info"
    assert j("min-kube-version-range", "", "community", releases=["4.16"], live=live | {"4.16"}, fbc=True).severity == "error"


def test_live_releases_come_from_the_catalogs_directory_and_include_releases_to_come():
    known = ["4.10", "4.11", "4.12", "4.13", "4.14", "4.23"]
    # a repository's file-based catalogs start where its operators moved to them: they never
    # make older releases end-of-life (redhat-marketplace-operators: catalogs/v4.17 and up)
    cat = gates.Catalog(live=("4.17",))
    assert gates.live_releases("community", cat, known) == {"4.12", "4.13", "4.14", "4.17", "4.23"}
    assert gates.live_releases("certified", None, known) == {"4.12", "4.13", "4.14", "4.23"}
    assert gates.live_releases("operatorhub", cat, known) is None


@pytest.fixture
def tree(tmp_path):
    """fixtures/catalog-small as a catalog repository whose gamma-op 2.1.0 sits in a directory
    that is not its version (check_operator_version_directory_name refuses it)."""
    dest = tmp_path / "catalog"
    shutil.copytree(os.path.join(FIXTURES, "catalog-small"), dest, symlinks=True)
    os.rename(dest / "operators" / "gamma-op" / "2.1.0", dest / "operators" / "gamma-op" / "2.1.0-rc")
    return dest


def _by_rule(data, rule):
    return [f for f in data["findings"] if f["rule"] == rule]


def test_config_yaml_organization_chooses_the_target_and_its_waivers_apply(tree):
    # alpha-op 0.3.0 without the support annotation: Red Hat's certification documentation lists
    # it (a warning for the certified targets), nothing else reads it (not reported for community)
    csv = tree / "operators" / "alpha-op" / "0.3.0" / "manifests" / "alpha-op.clusterserviceversion.yaml"
    csv.write_text(csv.read_text().replace("    support: Example Inc.\n", ""))

    def certification(data):
        return [x["severity"] for x in _by_rule(data, "csv-required-fields") if x["kind"] == "certification"]

    _, data = run_json("check", ".", cwd=str(tree))
    (f,) = _by_rule(data, "csv-version-directory")
    assert f["severity"] == "error" and f["gate"]["id"] == "check_operator_version_directory_name"
    assert "since 2026-01-12" in f["detail"]
    assert certification(data) == []
    # the certified catalog: its organization picks the certified target; its waiver applies
    (tree / "config.yaml").write_text("organization: certified-operators\n"
                                      "tests:\n  - name: check_operator_version_directory_name\n"
                                      "    ignore_operators: ['^gamma-']\n")
    _, data = run_json("check", ".", cwd=str(tree))
    assert certification(data) == ["warning"]
    (f,) = _by_rule(data, "csv-version-directory")
    assert f["severity"] == "warning" and "waives check_operator_version_directory_name" in f["detail"]
    # --profile wins over the catalog's word
    _, data = run_json("check", ".", "--profile", "community", cwd=str(tree))
    assert certification(data) == []
    (f,) = _by_rule(data, "csv-version-directory")
    assert f["severity"] == "warning"  # the waiver is the catalog's, whatever the target


def test_a_finding_on_releases_the_catalog_no_longer_builds_is_info(tree):
    # beta-op 1.0.0: label v4.10-v4.13, minKubeVersion 1.25 (OpenShift 4.12): above 4.10-4.11's Kubernetes
    ann = tree / "operators" / "beta-op" / "1.0.0" / "metadata" / "annotations.yaml"
    ann.write_text(ann.read_text().replace('"v4.12-v4.13"', '"v4.10-v4.13"'))
    for v in ("1.0.0", "1.1.0", "1.2.0"):
        csv = tree / "operators" / "beta-op" / v / "manifests" / "beta-op.clusterserviceversion.yaml"
        csv.write_text(csv.read_text().replace("minKubeVersion: 1.27.0", "minKubeVersion: 1.25.0"))
    # community's check refuses it anyway
    _, data = run_json("check", "operators/beta-op", cwd=str(tree))
    assert {f["severity"] for f in _by_rule(data, "min-kube-version-range")} == {"error"}
    # the certified pipelines do not run that check: OLM leaves the CSV Pending on 4.10-4.11 only, whose
    # catalogs are no longer built (the certified catalogs start at 4.12)
    _, data = run_json("check", "operators/beta-op", "--profile", "certified", cwd=str(tree))
    fs = _by_rule(data, "min-kube-version-range")
    assert fs and {f["severity"] for f in fs} == {"info"}
    assert all("no longer built" in f["detail"] for f in fs)
    # asked about those releases (--ocp), they are live for the run
    _, data = run_json("check", "operators/beta-op", "--profile", "certified", "--ocp", "4.10", cwd=str(tree))
    assert {f["severity"] for f in _by_rule(data, "min-kube-version-range")} == {"error"}


def test_marketplace_is_a_target(tree):
    (tree / "config.yaml").write_text("organization: redhat-marketplace\n")
    _, data = run_json("check", ".", cwd=str(tree))
    # check_marketplace_annotation's gate is on the marketplace route only; the certification
    # documentation's annotations are asked for as in certified
    assert {x["severity"] for x in _by_rule(data, "min-kube-version-range")} == {"error"}
    p = run_cli("rules", "--format", "json")
    assert p.returncode == 0
    rule = next(x for x in json.loads(p.stdout)["rules"] if x["id"] == "feature-annotations-required")
    assert rule["profiles"]["marketplace"] == "error" and rule["profiles"]["community"] == "off"
    k = rule["kinds"][0]["targets"]["marketplace"]
    assert k["severity"] == "error" and "RequiredAnnotations" in k["gate"]


def test_a_sentence_about_a_gate_is_in_the_detail_only_where_that_gate_is_on_the_route(tree):
    # alpha-op 0.2.0 is dangling: OLM never offers an upgrade from it (every target), and
    # community's check_dangling_bundles also fails the channel (community only)
    _, data = run_json("check", "operators/alpha-op", cwd=str(tree))
    (f,) = _by_rule(data, "dangling-bundle")
    assert f["severity"] == "error" and "check_dangling_bundles" in f["detail"]
    _, data = run_json("check", "operators/alpha-op", "--profile", "certified", cwd=str(tree))
    (f,) = _by_rule(data, "dangling-bundle")
    assert f["severity"] == "error" and "check_dangling_bundles" not in f["detail"] and "OLM never offers" in f["detail"]


def test_a_catalog_config_yaml_that_cannot_be_read_is_a_finding_and_the_run_goes_on(tree, tmp_path):
    # broken YAML: reported at its line; no organization, so the default target (community)
    (tree / "config.yaml").write_text("organization: certified-operators\ntests: [\n")
    _, data = run_json("check", ".", cwd=str(tree))
    bad = [f for f in data["findings"] if f["path"] == "config.yaml"]
    assert bad and bad[0]["rule"] == "yaml-syntax"
    assert {x["severity"] for x in _by_rule(data, "min-kube-version-range")} == {"error"}  # community's own check
    # a link out of the tree is not followed (the Reader's rule for every file)
    outside = tmp_path / "outside.yaml"
    outside.write_text("organization: certified-operators\n")
    (tree / "config.yaml").unlink()
    os.symlink(outside, tree / "config.yaml")
    _, data = run_json("check", ".", cwd=str(tree))
    assert any(f["path"] == "config.yaml" and f["rule"] == "yaml-limits" for f in data["findings"])
    assert {x["severity"] for x in _by_rule(data, "min-kube-version-range")} == {"error"}
