"""SARIF 2.1.0 output: a report over every bad rule fixture (fixtures/rules/*/bad*) has the
shape GitHub code scanning needs (a rule entry with help per rule id, results pointing at their
rule by index, repository-relative URIs under %SRCROOT%, 1-based regions, tool version and
information URI), and passes Microsoft's SARIF Multitool (`../shared/tools/sarif-validate`,
next to the repository as CI lays it out) when that tool is there.
"""
import glob
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES
from helpers import ROOT, run_cli

TOP = os.path.dirname(FIXTURES)  # the materialised fixtures/ lies in TOP, as in the repository

VALIDATOR = os.path.normpath(os.path.join(ROOT, "..", "shared", "tools", "sarif-validate"))


@pytest.fixture(scope="module")
def fixture_sarif(tmp_path_factory):
    """`olm-check check fixtures/rules/*/bad* --format sarif --output FILE`, from the repository root."""
    cases = sorted(os.path.relpath(p, TOP) for p in glob.glob(os.path.join(FIXTURES, "rules", "*", "bad*")))
    assert len(cases) > 20
    out = tmp_path_factory.mktemp("sarif") / "fixtures.sarif"
    p = run_cli("check", *cases, "--format", "sarif", "--output", str(out), "--fail-on", "never", cwd=TOP)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert out.read_text(encoding="utf-8") == p.stdout
    return str(out), json.loads(p.stdout), cases


def test_sarif_shape(fixture_sarif):
    from checker import INFORMATION_URI, __version__

    _path, doc, cases = fixture_sarif
    assert doc["version"] == "2.1.0"
    assert doc["$schema"].endswith("sarif-2.1.0.json")
    assert len(doc["runs"]) == 1
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "olm-check" and driver["version"] == __version__
    assert driver["informationUri"] == INFORMATION_URI
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    for r in rules:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"]
        assert r["help"]["text"] and r["help"]["markdown"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert r["helpUri"].startswith("https://")
    assert "%SRCROOT%" in run["originalUriBaseIds"]
    results = run["results"]
    assert len(results) >= len(cases)  # every bad fixture has at least one finding
    seen_rules = set()
    for res in results:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        seen_rules.add(res["ruleId"])
        assert res["level"] in ("error", "warning", "note")
        assert res["message"]["text"].strip()
        loc = res["locations"][0]["physicalLocation"]
        art = loc["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%"
        assert art["uri"].startswith("fixtures/rules/") and not art["uri"].startswith("/") and ".." not in art["uri"]
        assert re.fullmatch(r"[A-Za-z0-9/._~%-]+", art["uri"]), art["uri"]
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
        assert re.fullmatch(r"[0-9a-f]{16}", res["partialFingerprints"]["olmCheckFinding/v1"])
    assert "internal-error" not in seen_rules
    # the fixture names its rule: each bad case of rule R reports R
    def within(uri, case):
        case = case.replace(os.sep, "/")
        return uri == case or uri.startswith(case + "/")

    for case in cases:
        if not _standalone(case):
            continue  # it needs its own profile, --ocp, config or path: not checked that way here
        rid = case.split(os.sep)[2]
        assert any(r["ruleId"] == rid and within(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], case)
                   for r in results), f"{case}: no {rid} result"


def _standalone(case):
    """A bad fixture whose finding shows when it is checked with defaults from the repository root."""
    import yaml

    d = os.path.join(TOP, case)
    if os.path.exists(os.path.join(d, ".olm-check.yaml")) or os.path.isdir(os.path.join(d, "operators")):
        return False  # (catalog repositories: operators are known by name, one per name in a run)
    with open(os.path.join(d, "expect.yaml"), encoding="utf-8") as fh:
        exp = yaml.safe_load(fh) or {}
    return not (set(exp) - {"findings", "base", "remove"})  # base, remove: how the tree was made


def test_sarif_matches_the_json_report():
    cases = sorted(os.path.relpath(p, TOP) for p in glob.glob(os.path.join(FIXTURES, "rules", "yaml-*", "bad*")))
    j = json.loads(run_cli("check", *cases, "--format", "json", cwd=TOP).stdout)
    s = json.loads(run_cli("check", *cases, "--format", "sarif", cwd=TOP).stdout)
    level = {"error": "error", "warning": "warning", "info": "note"}
    got = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in s["runs"][0]["results"]]
    want = [(f["rule"], level[f["severity"]], f["path"], f["line"]) for f in j["findings"]]
    assert got == want


def test_paths_outside_the_repository_are_absolute_file_uris(tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(os.path.join(ROOT, "fixtures", "bundles", "good"), bundle)
    (bundle / "manifests" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for given in (str(bundle), "../bundle"):
        doc = json.loads(run_cli("check", given, "--format", "sarif", cwd=str(elsewhere)).stdout)
        dup = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "yaml-duplicate-key"]
        assert [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in dup] == [
            {"uri": (bundle / "manifests" / "cm.yaml").as_uri()}]


@pytest.mark.skipif(not os.path.exists(VALIDATOR),
                    reason="../shared/tools/sarif-validate (Microsoft SARIF Multitool) is not next to this checkout")
def test_sarif_multitool_accepts_the_fixture_report(fixture_sarif):
    path, _doc, _cases = fixture_sarif
    p = subprocess.run([VALIDATOR, path], capture_output=True, text=True, timeout=600)
    if p.returncode == 2 and "could not install" in p.stderr:
        pytest.skip("the SARIF Multitool could not be installed here (no npm registry access)")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert p.stdout.rstrip().endswith(": 0 error(s)"), p.stdout[-3000:]
    assert " warning " not in p.stdout, p.stdout[-3000:]
