"""Catalog repositories: FBC catalogs decide publication, missing catalogs, JSON catalogs,
checked operators, plain bundles' minKubeVersion, and bad input that must never raise."""
import os
import shutil

from checker.api import check



def _by_path(res):
    return {b["path"]: b for b in res.report["bundles"]}


def _no_internal(res):
    assert not [f.message for f in res.findings if f.rule == "internal-error"]


def test_fbc_catalogs_decide_publication(copy_fixture):
    copy_fixture("repos/fbc")
    res = check(["."])
    _no_internal(res)
    b = _by_path(res)
    # 0.1.0 is labelled v4.14-v4.15 but only catalogs/v4.16 lists it
    assert b["operators/kube-example/0.1.0"]["ocp_versions"] == ["4.16"]
    # 0.2.0: listed by v4.16 (YAML) and v4.17 (JSON); v4.18 is mapped in ci.yaml but its
    # file is missing from the checkout: unknown, so neither used nor reported
    assert b["operators/kube-example/0.2.0"]["ocp_versions"] == ["4.16", "4.17"]
    # a non-FBC operator keeps its label
    assert b["operators/example-operator/1.0.0"]["ocp_versions"][0] == "4.14"
    mism = [f for f in res.findings if f.rule == "fbc-ocp-mismatch"]
    assert [(f.path, f.line, f.ocp_versions) for f in mism] == [
        ("operators/kube-example/0.1.0/metadata/annotations.yaml", 8, ["4.16"])]
    assert "4.14-4.15" in mism[0].detail and "4.16" in mism[0].message  # the catalogs' releases; the label's in the detail
    assert not [f for f in res.findings if f.rule == "fbc-schema"]


def test_catalog_mapping_decides_without_catalog_listing(copy_fixture, tmp_path):
    root = copy_fixture("repos/fbc")
    shutil.rmtree(os.path.join(root, "catalogs", "v4.16"))
    shutil.rmtree(os.path.join(root, "catalogs", "v4.17"))
    res = check(["."])
    _no_internal(res)
    b = _by_path(res)
    # no catalog lists the bundle: ci.yaml's catalog_mapping (v4.16-v4.18) decides, not its label
    assert b["operators/kube-example/0.1.0"]["ocp_versions"] == ["4.16", "4.17", "4.18"]
    assert not [f for f in res.findings if f.rule == "fbc-ocp-mismatch"]


def test_label_decides_without_catalog_listing_or_mapping(copy_fixture, tmp_path):
    root = copy_fixture("repos/fbc")
    shutil.rmtree(os.path.join(root, "catalogs", "v4.16"))
    shutil.rmtree(os.path.join(root, "catalogs", "v4.17"))
    ci = os.path.join(root, "operators", "kube-example", "ci.yaml")
    with open(ci, "w") as fh:
        fh.write("---\nreviewers: [example-maintainer]\nfbc:\n  enabled: true\n")
    res = check(["."])
    _no_internal(res)
    b = _by_path(res)
    assert b["operators/kube-example/0.1.0"]["ocp_versions"] == ["4.14", "4.15"]


def test_broken_catalog_is_a_finding_not_a_crash(copy_fixture):
    root = copy_fixture("repos/fbc")
    with open(os.path.join(root, "catalogs/v4.16/kube-example/catalog.yaml"), "a") as fh:
        fh.write("---\nschema: olm.bundle\nname: [unclosed\n")
    with open(os.path.join(root, "catalogs/v4.17/kube-example/catalog.json"), "a") as fh:
        fh.write('{"schema": "olm.bundle", "name": \n')
    res = check(["."])
    _no_internal(res)
    syntax = sorted((f.path, f.rule) for f in res.findings if f.rule == "yaml-syntax")
    assert syntax == [("catalogs/v4.16/kube-example/catalog.yaml", "yaml-syntax"),
                      ("catalogs/v4.17/kube-example/catalog.json", "yaml-syntax")]
    # an unreadable catalog's membership is unknown: ci.yaml's catalog_mapping decides again
    assert _by_path(res)["operators/kube-example/0.1.0"]["ocp_versions"] == ["4.16", "4.17", "4.18"]


def test_wrong_types_everywhere_never_raise(copy_fixture):
    root = copy_fixture("repos/fbc")
    with open(os.path.join(root, "catalogs/v4.16/kube-example/catalog.yaml"), "w") as fh:
        fh.write("---\n- a list\n---\nschema: olm.channel\npackage: kube-example\nname: stable\nentries: text\n"
                 "---\nschema: olm.bundle\nname: kube-example.v0.1.0\npackage: kube-example\nproperties: {a: b}\nimage: 12\n"
                 "---\nschema: olm.package\nname: Kube_Example\ndefaultChannel: [x]\n"
                 "---\nschema: olm.deprecations\npackage: kube-example\nentries: [{reference: nope}]\n"
                 "---\nschema: 42\n")
    with open(os.path.join(root, "operators/kube-example/ci.yaml"), "w") as fh:
        fh.write("- just\n- a list\n")
    with open(os.path.join(root, "operators/example-operator/ci.yaml"), "w") as fh:
        fh.write("fbc: {enabled: true, catalog_mapping: [text, {catalog_names: 4.16}]}\nreviewers: []\n")
    with open(os.path.join(root, "deploy/catalogsource.yaml"), "a") as fh:
        fh.write("---\nkind: CatalogSource\nspec: [1, 2]\n---\nkind: CatalogSource\nspec:\n  sourceType: [grpc]\n"
                 "  grpcPodConfig: text\n  updateStrategy: {registryPoll: {interval: 10}}\n  icon: []\n")
    res = check(["."])
    _no_internal(res)
    rules = {f.rule for f in res.findings}
    assert {"fbc-schema", "ci-config", "catalogsource-schema"} <= rules


def test_only_checked_operators_report_catalog_problems(copy_fixture):
    root = copy_fixture("repos/fbc")
    with open(os.path.join(root, "catalogs/v4.16/kube-example/catalog.yaml"), "a") as fh:
        fh.write("---\nname: stray\n")
    with open(os.path.join(root, "operators/kube-example/ci.yaml"), "a") as fh:
        fh.write("updateGraph: sideways\n")
    res = check(["."], changed=["operators/example-operator/1.1.0/metadata/annotations.yaml"])
    _no_internal(res)
    assert not [f for f in res.findings if f.rule in ("fbc-schema", "ci-config", "fbc-ocp-mismatch")]
    res = check(["."], changed=["catalogs/v4.16/kube-example/catalog.yaml"])
    assert [f.rule for f in res.findings if f.rule == "fbc-schema"] == ["fbc-schema"]


def test_plain_bundle_min_kube_version_drives_version_rules(copy_fixture):
    root = copy_fixture("rules/plain-bundle-metadata/good")
    with open(os.path.join(root, "metadata/olm.yaml"), "w") as fh:
        fh.write("name: example-operator\nversion: 1.0.0\nminKubeVersion: 1.30.0\ninstallModes: [AllNamespaces]\n")
    res = check(["."])
    _no_internal(res)
    b = res.report["bundles"][0]
    assert b["mediatype"] == "k8s+v1"
    assert b["ocp_versions"][0] == "4.14"
    assert b["ocp_installable"][0] == "4.17"  # Kubernetes 1.30


def test_catalogsource_proposed_config_flips_the_target(copy_fixture):
    root = copy_fixture("rules/catalogsource-proposed-schema/bad")
    res = check(["."])
    assert [f.rule for f in res.findings if f.rule.startswith("catalogsource")] == ["catalogsource-proposed-schema"]
    with open(os.path.join(root, ".olm-check.yaml"), "w") as fh:
        fh.write("catalogsource_schema: proposed\n")
    res = check(["."])
    assert not [f for f in res.findings if f.rule.startswith("catalogsource")]


def test_pruning_big_properties_keeps_every_position():
    from checker.catalogs import _prune
    from checker.yamlload import parse

    text = ("---\nschema: olm.bundle\nname: a.v1.0.0\npackage: a\nimage: quay.io/a/b@sha256:" + "0" * 64 + "\n"
            "properties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.0\n"
            "- type: olm.csv.metadata\n  value:\n    description: |-\n      ## Heading\n\n      # not a comment\n"
            "    crdDescriptions:\n      owned:\n      - kind: A\n        name: as.a.io\n"
            "- type: olm.bundle.object\n  value:\n    data: eyJhIjoxfQ==\n"
            "relatedImages:\n- image: quay.io/a/b:1\n  name: b\n"
            "---\nschema: olm.package\nname: a\ndefaultChannel: stable\n")
    pruned = _prune(text)
    assert pruned.count("\n") == text.count("\n")
    assert "crdDescriptions" not in pruned and "value: {}" in pruned
    full, p1 = parse(text)
    cut, p2 = parse(pruned)
    assert not p1 and not p2

    def shape(docs):
        return [(d.line, d.col, d.get("name").value, [(i.line, i.col) for i in d.get("relatedImages") or []],
                 [(p.get("type").value, p.line) for p in d.get("properties") or []]) for d in docs if d is not None]

    assert shape(full) == shape(cut)
    assert cut[0].get("properties")[0].get("value").get("version").value == "1.0.0"


def test_plain_bundle_wrong_types_never_raise(copy_fixture):
    root = copy_fixture("rules/plain-bundle-apis/bad")
    files = {
        "metadata/olm.yaml": "- name\n- version\n",
        "manifests/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: text\n",
        "manifests/clusterrole.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: example-operator}\nrules: all\n",
        "manifests/clusterrolebinding.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: x\nsubjects: [1, {kind: ServiceAccount}]\n",
        "manifests/webhook.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: w}\nwebhooks: {a: b}\n",
        "manifests/apiservice.yaml": "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.x.io}\nspec: {group: x.io, service: {name: 7}}\n",
    }
    for rel, text in files.items():
        with open(os.path.join(root, rel), "w") as fh:
            fh.write(text)
    res = check(["."])
    _no_internal(res)
    assert [f.line for f in res.findings if f.rule == "plain-bundle-metadata"] == [1]


def test_same_catalog_in_two_releases_is_reported_in_each(copy_fixture):
    """A catalog file repeated verbatim across releases is parsed once (its documents are
    shared); each release's copy still gets its own findings at its own path."""
    root = copy_fixture("repos/fbc")
    v16 = os.path.join(root, "catalogs/v4.16/kube-example/catalog.yaml")
    with open(v16, "a") as fh:
        fh.write("---\nschema: olm.bundle\nname: [unclosed\n")
    os.makedirs(os.path.join(root, "catalogs/v4.15/kube-example"))
    shutil.copy(v16, os.path.join(root, "catalogs/v4.15/kube-example/catalog.yaml"))
    res = check(["."])
    _no_internal(res)
    syntax = sorted((f.path, f.line, f.column) for f in res.findings if f.rule == "yaml-syntax")
    assert len(syntax) == 2
    assert [p for p, _, _ in syntax] == ["catalogs/v4.15/kube-example/catalog.yaml", "catalogs/v4.16/kube-example/catalog.yaml"]
    assert syntax[0][1:] == syntax[1][1:]
