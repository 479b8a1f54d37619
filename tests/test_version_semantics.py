"""versions.md semantics, end to end on fixture bundles: what a bundle is published to and
installable on, --ocp targets, upgrade reachability, RBAC never flagged."""
from checker.api import check


def rules_of(res):
    return {(f.rule, f.severity) for f in res.findings}


def test_published_and_installable_follow_label_and_minkube_not_max(copy_fixture):
    copy_fixture("rules/max-ocp-version-range/bad")  # label v4.14 (open), max 4.16, minKube 1.27.0
    res = check(["."])
    b = res.report["bundles"][0]
    assert b["ocp_label"] == "v4.14"
    assert b["ocp_versions"][0] == "4.14" and b["ocp_versions"][-1] == "5.0"
    # maxOpenShiftVersion is no install barrier (OLM reads it for the Upgradeable condition only)
    assert b["ocp_installable"] == b["ocp_versions"]


def test_max_below_a_removal_does_not_stop_removed_api_where_published(copy_fixture):
    copy_fixture("rules/removed-api/bad-max-not-a-barrier")  # no label, max 4.8, v1beta1 CRD
    res = check(["."])
    f = [f for f in res.findings if f.rule == "removed-api"]
    assert len(f) == 1 and f[0].severity == "error"
    assert f[0].ocp_versions[0] == "4.9" and "4.8" not in f[0].ocp_versions
    assert "OLM reads it only to block cluster upgrades" in f[0].detail


def test_no_range_means_every_release_with_a_catalog_and_ga_removals_are_errors(copy_fixture):
    copy_fixture("rules/removed-api/bad-no-range")
    res = check(["."])
    b = res.report["bundles"][0]
    # 4.1-4.5 shared one App Registry catalog: a bundle today is published from 4.6 on
    assert b["ocp_versions"][0] == "4.6" and "4.5" not in b["ocp_versions"]
    removed = [f for f in res.findings if f.rule == "removed-api"]
    assert len(removed) == 1 and removed[0].severity == "error"
    assert removed[0].ocp_versions[0] == "4.12" and "5.0" not in removed[0].ocp_versions  # upcoming is not "removed"
    assert ("no-version-constraints", "warning") in rules_of(res)
    assert not any(f.rule == "ocp-versions-missing" for f in res.findings)  # one problem, one finding
    assert "policy/v1" in removed[0].message


def test_explicit_target_replaces_the_range(copy_fixture):
    copy_fixture("rules/removed-api-on-upgrade/bad")  # label v4.8-v4.10, policy/v1beta1 PDB
    res = check(["."], target=["4.16"])
    assert res.report["bundles"][0]["ocp_versions"] == ["4.16"]
    got = rules_of(res)
    assert ("removed-api", "error") in got
    assert not any(r == "removed-api-on-upgrade" for r, _ in got)
    f = [f for f in res.findings if f.rule == "removed-api"][0]
    assert f.ocp_versions == ["4.16"]


def test_removed_api_on_upgrade_names_the_release_and_offers_max(copy_fixture):
    copy_fixture("rules/removed-api-on-upgrade/bad")
    res = check(["."])
    f = [f for f in res.findings if f.rule == "removed-api-on-upgrade"][0]
    assert f.severity == "error"
    assert "4.12" in f.message and "maxOpenShiftVersion" in f.detail and '"4.11"' in f.detail
    assert f.ocp_versions[0] == "4.12"
    assert not any(x.rule == "removed-api" for x in res.findings)  # not removed inside the published range


def test_open_ended_label_has_no_upgrade_finding(copy_fixture):
    copy_fixture("rules/removed-api/bad")
    res = check(["."])
    assert not any(f.rule == "removed-api-on-upgrade" for f in res.findings)


def test_rbac_rules_are_never_removed_api_findings(copy_fixture):
    copy_fixture("rules/removed-api/good-rbac")
    res = check(["."])
    assert not any(f.rule in ("removed-api", "deprecated-api") for f in res.findings)


def test_certified_profile_makes_missing_label_an_error(copy_fixture):
    copy_fixture("rules/ocp-versions-missing/bad-warning")
    assert ("ocp-versions-missing", "warning") in rules_of(check(["."]))
    assert ("ocp-versions-missing", "error") in rules_of(check(["."], profile="certified"))


def test_min_kube_syntax_reported_once_with_fix(copy_fixture):
    copy_fixture("rules/min-kube-version-syntax/bad-string")
    res = check(["."])
    mk = [f for f in res.findings if f.rule.startswith("min-kube")]
    assert len(mk) == 1
    assert mk[0].fix is not None and mk[0].fix.replacement.strip() == "minKubeVersion: 1.27.0"


def test_label_syntax_fix_quotes_the_number(copy_fixture):
    copy_fixture("rules/ocp-versions-syntax/bad")
    res = check(["."])
    f = [f for f in res.findings if f.rule == "ocp-versions-syntax"][0]
    assert f.fix.replacement == '  com.redhat.openshift.versions: "v4.10"'


def test_explicit_target_drops_the_closed_range_reminder(copy_fixture):
    copy_fixture("rules/ocp-versions-closed-range/bad")
    assert any(f.rule == "ocp-versions-closed-range" for f in check(["."]).findings)
    assert not any(f.rule == "ocp-versions-closed-range" for f in check(["."], target=["4.16"]).findings)


def test_no_constraints_warns_once_but_certified_still_errors_on_missing_label(copy_fixture):
    copy_fixture("rules/no-version-constraints/bad")
    community = rules_of(check(["."]))
    assert ("no-version-constraints", "warning") in community
    assert not any(r == "ocp-versions-missing" for r, _ in community)
    assert ("ocp-versions-missing", "error") in rules_of(check(["."], profile="certified"))


# Issue 17 item 4: profiles and the configuration decide severities, never the rule itself;
# ocp-versions-missing and no-version-constraints tell one problem at one place: reported once.

def _cli_findings(cwd, *args):
    import json

    from helpers import run_cli

    p = run_cli("check", ".", "--format", "json", *args, cwd=cwd)
    assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stderr
    data = json.loads(p.stdout)
    return p.returncode, [(f["rule"], f["severity"], f["path"], f["line"], f["column"]) for f in data["findings"]
                          if f["rule"] in ("ocp-versions-missing", "no-version-constraints")]


def _config(root, text):
    import os

    with open(os.path.join(root, ".olm-check.yaml"), "w") as fh:
        fh.write(text)


def test_config_raising_ocp_versions_missing_is_obeyed_on_a_bundle_without_constraints(copy_fixture):
    root = copy_fixture("rules/no-version-constraints/bad")  # no label, no max, no minKubeVersion
    assert _cli_findings(root) == (0, [("no-version-constraints", "warning", "metadata/annotations.yaml", 2, 3)])
    _config(root, "rules:\n  ocp-versions-missing: error\n")
    # the configured error is reported (once: the warning it is the same problem as goes) and fails the run
    assert _cli_findings(root) == (1, [("ocp-versions-missing", "error", "metadata/annotations.yaml", 2, 3)])


def test_certified_profile_reports_the_missing_range_once_as_an_error(copy_fixture):
    root = copy_fixture("rules/no-version-constraints/bad")
    assert _cli_findings(root, "--profile", "certified") == (
        1, [("ocp-versions-missing", "error", "metadata/annotations.yaml", 2, 3)])


def test_turning_off_either_rule_leaves_the_other(copy_fixture):
    root = copy_fixture("rules/no-version-constraints/bad")
    _config(root, "rules:\n  no-version-constraints: off\n")
    assert _cli_findings(root) == (0, [("ocp-versions-missing", "warning", "metadata/annotations.yaml", 2, 3)])
    _config(root, "rules:\n  ocp-versions-missing: off\n")
    assert _cli_findings(root) == (0, [("no-version-constraints", "warning", "metadata/annotations.yaml", 2, 3)])


def test_fbc_operator_without_a_label_uses_its_catalog_mapping(copy_fixture):
    # ci.yaml maps v4.16 and v4.18; no catalog lists the bundle yet; minKubeVersion 1.31.0 (4.18)
    copy_fixture("rules/min-kube-version-range/bad-fbc-mapping")
    res = check(["."])
    b = res.report["bundles"][0]
    assert b["ocp_versions"] == ["4.16", "4.18"]
    got = rules_of(res)
    assert ("min-kube-version-range", "error") in got
    assert not any(r in ("ocp-versions-missing", "no-version-constraints") for r, _ in got)


def test_config_turns_on_a_rule_the_profile_leaves_off(copy_fixture):
    """The configuration is obeyed over the profile: `feature-annotations-required` is off in
    `community`, and `rules: {feature-annotations-required: error}` reports it there."""
    import json

    from helpers import run_cli

    root = copy_fixture("rules/feature-annotations-required/bad")

    def required():
        p = run_cli("check", ".", "--format", "json")
        assert "Traceback" not in p.stderr, p.stderr
        return p.returncode, [(f["severity"], f["line"]) for f in json.loads(p.stdout)["findings"]
                              if f["rule"] == "feature-annotations-required"]

    assert required()[1] == []
    _config(root, "rules:\n  feature-annotations-required: error\n")
    rc, found = required()
    assert rc == 1 and found == [("error", 7)]


def test_min_kube_version_is_read_whatever_the_case_of_its_key(copy_fixture):
    copy_fixture("rules/min-kube-version-range/bad-key-case")  # spec.MinKubeVersion: 1.29.0, label v4.14
    res = check(["."])
    b = res.report["bundles"][0]
    assert b["ocp_installable"][0] == "4.16"  # Kubernetes 1.29
    assert [f.ocp_versions for f in res.findings if f.rule == "min-kube-version-range"] == [["4.14", "4.15"]]
    assert any(f.rule == "csv-unknown-field" and f.severity == "warning" for f in res.findings)  # the spelling


def test_fbc_bundle_no_catalog_lists_is_published_nowhere(copy_fixture):
    copy_fixture("rules/removed-api/good-fbc-unlisted")  # 1.0.0 labelled v4.10; the v4.16 catalog lists 2.0.0 only
    res = check(["."])
    b = res.report["bundles"][0]
    assert b["ocp_label"] == "v4.10"
    assert b["ocp_versions"] == [] and b["ocp_installable"] == []
    assert not any(f.rule in ("removed-api", "deprecated-api") for f in res.findings)


def test_fbc_bundle_is_published_to_the_catalogs_that_list_it(copy_fixture):
    copy_fixture("rules/removed-api/bad-fbc-listed")
    res = check(["."])
    assert res.report["bundles"][0]["ocp_versions"] == ["4.16"]
    assert [(f.severity, f.ocp_versions) for f in res.findings if f.rule == "removed-api"] == [("error", ["4.16"])]


def test_catalogs_v5_0_and_v4_23_are_the_5_0_catalog(copy_fixture):
    import os

    for name in ("v5.0", "v4.23"):
        d = copy_fixture("rules/removed-api/bad-fbc-listed", name=name)
        os.rename(os.path.join(d, "catalogs", "v4.16"), os.path.join(d, "catalogs", name))
        res = check([str(d)])
        assert res.report["bundles"][0]["ocp_versions"] == ["5.0"], name
        # 5.0 is not GA yet: the removal there is no "removed-api" error of a GA release
        assert not any(f.rule == "removed-api" for f in res.findings)


def test_min_kube_findings_name_exactly_the_releases_concerned(copy_fixture):
    copy_fixture("rules/min-kube-version-range/bad-above-max")  # v4.14, minKube 1.29.0, max 4.15
    res = check(["."])
    got = sorted((f.kind, f.ocp_versions[0], f.ocp_versions[-1]) for f in res.findings if f.rule == "min-kube-version-range")
    assert got == [("", "4.14", "4.15"), ("above-max", "4.16", "5.0")]


def test_min_kube_version_key_case_without_label(copy_fixture):
    import os

    d = copy_fixture("rules/min-kube-version-range/bad-key-case")  # spec.MinKubeVersion: 1.29.0
    for name in ("metadata/annotations.yaml", "bundle.Dockerfile"):
        p = os.path.join(d, name)
        with open(p) as fh:
            kept = [l for l in fh if "com.redhat.openshift.versions" not in l]
        with open(p, "w") as fh:
            fh.writelines(kept)
    res = check(["."])
    got = [f for f in res.findings if f.rule == "ocp-versions-missing"]
    # OLM obeys MinKubeVersion: published to every release, it cannot install on 4.6-4.15
    assert len(got) == 1 and got[0].severity == "error" and "excludes 4.6-4.15" in got[0].message
    assert got[0].ocp_versions[0] == "4.6" and got[0].ocp_versions[-1] == "4.15"


def test_a_loop_no_release_holds_whole_is_the_community_ci_s_only(copy_fixture):
    import os

    d = copy_fixture("rules/upgrade-graph-loop/bad")  # 1.0.0 and 1.1.0 replace each other, both v4.14
    for ver, label in (("1.0.0", "=v4.14"), ("1.1.0", "v4.15")):
        p = os.path.join(d, "operators", "example-operator", ver, "metadata", "annotations.yaml")
        with open(p) as fh:
            text = fh.read()
        with open(p, "w") as fh:
            fh.write(text.replace('"v4.14"', f'"{label}"'))
    res = check(["."])
    loops = [f for f in res.findings if f.rule == "upgrade-graph-loop"]
    assert [(f.severity, f.kind, f.ocp_versions) for f in loops] == [("error", "ci-only", [])]
    assert "no release's catalog holds every bundle of it" in loops[0].detail
    assert "check_upgrade_graph_loop, community suite" in loops[0].detail
    # in the bad fixture itself both are in every catalog from 4.14: opm meets the loop there
    d = copy_fixture("rules/upgrade-graph-loop/bad", name="same")
    loops = [f for f in check(["."]).findings if f.rule == "upgrade-graph-loop"]
    assert [(f.kind, f.ocp_versions[0]) for f in loops] == [("", "4.14")]
