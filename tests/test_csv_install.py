"""CSV install-content rules (checker/rules/csv/*.py, their shared readers in checker/rules/lib/csv_install.py): what the
fixture table cannot say - machine fixes, severities that must not be warnings, and input of
every wrong shape never raising."""
import os
import shutil

from checker.api import check

from conftest import FIXTURES

MINE = {"owned-crd-fields", "required-crd-fields", "apiservice-definitions", "webhook-definitions",
        "resource-requests", "channel-naming", "rbac-crd-create", "rbac-risky", "disruption-budget"}
CSV = "manifests/example-operator.clusterserviceversion.yaml"


def _case(copy_fixture, rel):
    copy_fixture(os.path.join("rules", rel))
    return check(["."])


def _apply(path, fix):
    with open(path) as fh:
        lines = fh.read().split("\n")
    lines[fix.line - 1] = fix.replacement
    return "\n".join(lines)


def test_priority_class_fix_sets_global_default_false(copy_fixture):
    res = _case(copy_fixture, "disruption-budget/bad")
    f = [f for f in res.findings if f.rule == "disruption-budget" and f.path == "manifests/priorityclass.yaml"][0]
    assert f.fix is not None and f.fix.replacement == "globalDefault: false"
    fixed = _apply("manifests/priorityclass.yaml", f.fix)
    with open("manifests/priorityclass.yaml", "w") as fh:
        fh.write(fixed)
    assert not [g for g in check(["."]).findings if g.rule == "disruption-budget" and g.path == "manifests/priorityclass.yaml"]


def test_pdb_percentage_is_not_zero(copy_fixture):
    # operator-sdk reads any string maxUnavailable as 0 and reports "50%"; we must not
    res = _case(copy_fixture, "disruption-budget/good")
    assert not [f for f in res.findings if f.rule == "disruption-budget"]


def test_webhook_type_letter_case_has_fix(copy_fixture):
    res = _case(copy_fixture, "webhook-definitions/bad")
    f = [f for f in res.findings if f.rule == "webhook-definitions" and "letter case" in f.message][0]
    assert f.fix is not None
    assert f.fix.replacement.strip() == "- type: ValidatingAdmissionWebhook"


def test_alpha_channel_is_never_a_warning(copy_fixture):
    for profile in ("community", "certified", "operatorhub"):
        copy_fixture("rules/channel-naming/bad_alpha_is_info", name=f"c-{profile}")
        res = check(["."], profile=profile)
        got = [f.severity for f in res.findings if f.rule == "channel-naming"]
        assert got == ["info"], (profile, got)


def test_limits_count_as_requests(copy_fixture):
    res = _case(copy_fixture, "resource-requests/good")
    assert not [f for f in res.findings if f.rule == "resource-requests"]



def test_eviction_reason_names_best_effort_only_when_no_container_sets_resources(copy_fixture):
    """The detail says the pod is BestEffort (evicted first) only when no container of the pod
    sets a CPU or memory request or limit; here kube-rbac-proxy requests memory."""
    res = _case(copy_fixture, "resource-requests/bad")
    found = [f for f in res.findings if f.rule == "resource-requests"]
    assert found and all("BestEffort" not in f.detail and "ranks the pod early for eviction" in f.detail for f in found)
    csv = [os.path.join("manifests", n) for n in os.listdir("manifests") if n.endswith(".clusterserviceversion.yaml")][0]
    with open(csv) as fh:
        text = fh.read()
    with open(csv, "w") as fh:
        fh.write(text.replace("                    resources:\n                      requests:\n                        memory: 32Mi\n", ""))
    res = check(["."])
    found = [f for f in res.findings if f.rule == "resource-requests"]
    assert len(found) == 2 and all("the pod is BestEffort" in f.detail for f in found)


WRONG_SHAPES = [
    ("  customresourcedefinitions:\n", "  customresourcedefinitions:\n    required: {a: 1}\n  ignored:\n"),
    ("  relatedImages:\n", "  apiservicedefinitions:\n    owned: [1, [2], {group: 3, version: null, kind: [], name: {}, deploymentName: 7}]\n    required: text\n"
                           "  webhookdefinitions:\n    - 42\n    - {type: 7, generateName: [x], deploymentName: {}, rules: [1, {apiGroups: text, resources: 3}], conversionCRDs: text}\n"
                           "    - {type: ConversionWebhook, generateName: c, conversionCRDs: [1, null, widgets.example.com]}\n  relatedImages:\n"),
    ("  installModes:\n", "  installModes:\n    - 3\n    - {type: [AllNamespaces], supported: yes}\n"),
    ("      clusterPermissions:\n        - serviceAccountName: example-operator\n          rules:\n",
     "      clusterPermissions:\n        - text\n        - serviceAccountName: [a]\n          rules: text\n        - serviceAccountName: example-operator\n          rules:\n"
     "            - 5\n            - {apiGroups: '*', resources: [1, '*'], verbs: {a: b}, resourceNames: 3}\n"),
    ("                containers:\n", "                initContainers: text\n                containers:\n                  - text\n"
                                    "                  - {name: 1, resources: {requests: [cpu], limits: text}}\n                  - {name: x, resources: {requests: {cpu: true, memory: null}}}\n"),
]


def test_wrong_shapes_never_raise(tmp_path, monkeypatch):
    dest = tmp_path / "b"
    shutil.copytree(os.path.join(FIXTURES, "bundles", "good"), dest)
    p = dest / CSV
    text = p.read_text()
    for old, new in WRONG_SHAPES:
        assert old in text
        text = text.replace(old, new, 1)
    p.write_text(text)
    (dest / "manifests" / "odd.yaml").write_text(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec: text\n---\n"
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: q}\nspec: {maxUnavailable: [0], minAvailable: {a: 1}}\n---\n"
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: r}\nglobalDefault: 'true'\n---\n"
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: s}\nrules: text\n---\n"
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: t}\nrules: [3, {verbs: ['*']}]\n")
    monkeypatch.chdir(dest)
    res = check(["."])
    assert not [f.message for f in res.findings if f.rule == "internal-error"]
    rules = {f.rule for f in res.findings}
    assert {"apiservice-definitions", "webhook-definitions", "required-crd-fields", "resource-requests"} <= rules
    # every finding of ours has a position inside the file
    for f in res.findings:
        if f.rule in MINE:
            assert f.line >= 1 and f.column >= 1 and f.message


def test_csv_not_a_mapping_spec_never_raises(tmp_path, monkeypatch):
    dest = tmp_path / "b"
    shutil.copytree(os.path.join(FIXTURES, "bundles", "good"), dest)
    (dest / CSV).write_text("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: x.v1.0.0}\nspec: [1, 2]\n")
    monkeypatch.chdir(dest)
    res = check(["."])
    assert not [f.message for f in res.findings if f.rule == "internal-error"]


def test_owned_crd_entries_per_version_are_told_apart(copy_fixture):
    # a CSV owning one CRD once per version: each entry's finding names its version, and the
    # detail says why the console needs the text and what to add
    res = _case(copy_fixture, "owned-crd-fields/bad-per-version")
    got = [f for f in res.findings if f.rule == "owned-crd-fields"]
    assert [(f.line, f.severity) for f in got] == [(62, "warning"), (65, "warning")]
    assert "(version v1alpha1)" in got[0].message and "(version v1)" in got[1].message
    assert len({f.message for f in got}) == 2
    assert all("Add displayName and description." in f.detail for f in got)


# ---- descriptors: the loader skips them (load.SKIP_KEYS); the rule reads their text

_DESCRIPTOR_LISTS = [
    # (the YAML of one owned entry's descriptor lists, at the indentation of the entry's keys)
    "specDescriptors:\n- path: size\n  displayName: Size\n- displayName: Limits\n  path: 'resources.limits' # c\n",
    "specDescriptors:\n  - description: no path\n    x-descriptors:\n      - urn:alm:descriptor:com.tectonic.ui:podCount\n  - path: size\n",
    "specDescriptors:\n- path: 5\n- path: yes\n- path: ~\n- path:\n- path: ''\n- path: \"\"\n- path: ok\n",
    "statusDescriptors:\n- just a string\n- - nested\n-\n  path: alone\n- path: a\n  path: b\n",
    "actionDescriptors: [{path: a}, {displayName: b}, c]\n",
    'actionDescriptors: [{"path": "a"}, {"displayName": "b", "path": ""}]\n',
    "specDescriptors:\n-   path: wide\n    displayName: Wide\n-   displayName: none\n",
    "specDescriptors: not a list\nstatusDescriptors: {path: a}\n",
    "specDescriptors:\n- description: |\n    path: not a key\n  displayName: Block\n- path: x\n",
    "specDescriptors:\r\n- path: crlf\r\n  displayName: CRLF\r\n- displayName: none\r\n",
]


def _csv_text(lists: str) -> str:
    body = "".join("        " + line + "\n" if line.strip() else "\n" for line in lists.replace("\r\n", "\n").split("\n")[:-1])
    return ("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: x.v1.0.0\nspec:\n"
            "  customresourcedefinitions:\n    owned:\n      - name: widgets.example.com\n        version: v1\n        kind: Widget\n"
            + body)


def _descriptor_findings(path, skip_keys):
    from checker.load import Reader
    from checker.rules.csv.owned_crd_fields import RULE
    from checker.rules.lib.csv_install import descriptors

    reader = Reader(os.path.dirname(path), os.path.dirname(path), skip_keys=skip_keys)
    sf = reader.yaml_file(path)
    assert sf.readable
    entry = sf.documents[0].get("spec").get("customresourcedefinitions").get("owned").items[0]
    return [(f.message, f.line, f.column, f.kind) for f in descriptors(RULE.at, sf, entry, "the entry")]


def test_descriptors_read_from_text_as_from_nodes(tmp_path):
    # the text look (and the parse of a list that fails it) finds what the built nodes show,
    # at the same positions, for every layout; each case but the first has a finding
    from checker.load import SKIP_KEYS

    for i, lists in enumerate(_DESCRIPTOR_LISTS):
        path = str(tmp_path / f"csv{i}.yaml")
        text = _csv_text(lists)
        if "\r" in lists:
            text = text.replace("\n", "\r\n")
        with open(path, "w", newline="") as fh:
            fh.write(text)
        skipped = _descriptor_findings(path, SKIP_KEYS)
        built = _descriptor_findings(path, frozenset({"openAPIV3Schema"}))
        assert skipped == built, (lists, skipped, built)
        assert built or i == 0, lists  # the first is clean


def test_descriptors_clean_lists_take_no_parse(tmp_path, monkeypatch):
    # a list whose every item has a string path is answered by the text look alone
    from checker.load import SKIP_KEYS
    from checker.rules.lib import csv_install

    calls = []
    real = csv_install._parse_list
    monkeypatch.setattr(csv_install, "_parse_list", lambda src: calls.append(src) or real(src))
    path = str(tmp_path / "csv.yaml")
    with open(path, "w") as fh:
        fh.write(_csv_text(_DESCRIPTOR_LISTS[0] + "statusDescriptors:\n  - path: phase\n    x-descriptors:\n"
                           "      - 'urn:alm:descriptor:io.kubernetes.phase'\n"))
    assert _descriptor_findings(path, SKIP_KEYS) == []
    assert calls == []
    with open(path, "w") as fh:
        fh.write(_csv_text(_DESCRIPTOR_LISTS[1]))
    assert len(_descriptor_findings(path, SKIP_KEYS)) == 1 and len(calls) == 1
