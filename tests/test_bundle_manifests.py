"""Bundle-format manifest rules beyond their fixtures: the image reference grammar, the
bundle-size measure and threshold, the supported-kinds table by release, cross-bundle CRD
version checks limited to checked bundles, and wrong-typed input that must never raise."""
import base64
import gzip
import os
import random
import shutil

import pytest

from checker.api import check
from checker.rules.format.bundle_size import MAX_BUNDLE_SIZE, WARN_PERCENT, encoded_size
from checker.upstream.docker_reference import image_reference_problem
from checker.rules.format.unsupported_manifest_kind import kind_table

from conftest import FIXTURES

MINE = {"owned-crd-missing", "crd-not-owned", "crd-duplicate", "crd-owned-version", "crd-version-removal",
        "crd-legacy-version-field",
        "service-account-conflict", "bundle-size", "related-image-invalid", "unsupported-manifest-kind",
        "network-policy"}
CSV = "manifests/example-operator.clusterserviceversion.yaml"
DIGEST = "sha256:" + "4b8e2a2a24a3c0fbc5a2b5c6d7e8f90112233445566778899aabbccddeeff001"


@pytest.mark.parametrize("ref", [
    "quay.io/example/operator@" + DIGEST,
    "quay.io/example/operator:v1.0.0",
    "quay.io/example/operator:v1.0.0@" + DIGEST,
    "registry.example.com:5000/a/b/c_d__e-f.g:1.0",
    "busybox",
    "busybox:1.36",
    "library/busybox",
    "localhost/agent",
    "localhost:5000/agent",
    "[::1]:5000/agent:latest",
    "Quay.IO/example/operator:v1",  # the domain may have capitals; the path may not
    "Example/operator",  # as in ParseNormalizedNamed: an upper-case first part is taken as a domain
    "quay.io/example/operator@sha512:" + "a" * 128,
    "quay.io/example/operator:" + "t" * 128,
])
def test_valid_image_references(ref):
    assert image_reference_problem(ref) is None


@pytest.mark.parametrize("ref,why", [
    ("", "empty"),
    (" quay.io/example/operator:v1", "spaces"),
    ("quay.io/example/op erator:v1", "spaces"),
    ("docker://quay.io/example/operator:v1", "scheme"),
    ("https://quay.io/example/operator", "scheme"),
    ("quay.io/Example/operator:v1", "lowercase"),
    ("example/Operator", "lowercase"),
    ("quay.io/example/operator@sha256:abc", "64 hexadecimal"),
    ("quay.io/example/operator@sha256:" + "A" * 64, "lowercase"),
    ("quay.io/example/operator@md5:" + "a" * 32, "not supported"),
    ("quay.io/example/operator@", "digest"),
    ("quay.io/example/operator:-v1", "tag"),
    ("quay.io/example/operator:" + "t" * 129, "tag"),
    ("quay.io/example//operator", "grammar"),
    ("quay.io/example/operator-", "grammar"),
    ("a" * 64, "image ID"),
    ("quay.io/" + "a" * 256, "255"),
])
def test_invalid_image_references(ref, why):
    problem = image_reference_problem(ref)
    assert problem is not None and why in problem, problem


def test_encoded_size_is_base64_of_gzip():
    rnd = random.Random(7)
    for data in (b"", b"x", b"apiVersion: v1\nkind: ConfigMap\n" * 500, bytes(rnd.getrandbits(8) for _ in range(70000))):
        expected = len(base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)))
        assert encoded_size(data) == expected
        assert encoded_size(data, 1) >= encoded_size(data)


def _bundle_with_blob(copy_fixture, nbytes: int) -> str:
    root = copy_fixture("bundles/good")
    rnd = random.Random(nbytes)
    blob = base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(nbytes))).decode()
    body = "\n".join("    " + blob[i:i + 76] for i in range(0, len(blob), 76))
    with open(os.path.join(root, "manifests", "blob.yaml"), "w") as fh:
        fh.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blob\ndata:\n  blob: |\n" + body + "\n")
    return root


def _measure(root: str) -> int:
    total = 0
    for d in ("manifests", "metadata"):
        for name in os.listdir(os.path.join(root, d)):
            with open(os.path.join(root, d, name), "rb") as fh:
                total += len(base64.b64encode(gzip.compress(fh.read(), compresslevel=6, mtime=0)))
    with open(os.path.join(root, "bundle.Dockerfile"), "rb") as fh:
        total += len(base64.b64encode(gzip.compress(fh.read(), compresslevel=6, mtime=0)))
    return total


def test_bundle_size_warns_near_the_limit(copy_fixture):
    root = _bundle_with_blob(copy_fixture, 680_000)
    size = _measure(root)
    assert MAX_BUNDLE_SIZE * WARN_PERCENT < size <= MAX_BUNDLE_SIZE
    res = check(["."])
    got = [f for f in res.findings if f.rule == "bundle-size"]
    assert [(f.severity, f.path, f.line) for f in got] == [("warning", "manifests/blob.yaml", 1)]
    assert f"{100.0 * size / MAX_BUNDLE_SIZE:.0f}% of OLM's 1 MiB limit" in got[0].message


def test_bundle_size_quiet_below_the_warning(copy_fixture):
    root = _bundle_with_blob(copy_fixture, 560_000)
    assert _measure(root) < MAX_BUNDLE_SIZE * WARN_PERCENT
    res = check(["."])
    assert [f for f in res.findings if f.rule == "bundle-size"] == []


def test_kind_table_sources_and_backports():
    t = kind_table()
    for k in ("ClusterServiceVersion", "CustomResourceDefinition", "ConsoleYAMLSample", "PodDisruptionBudget"):
        assert k in t.always
    assert t.since["ConsoleQuickStart"] == (4, 10) and t.since["ConsolePlugin"] == (4, 20)
    assert t.since["NetworkPolicy"] == (4, 20)
    assert sorted(t.zstreams["NetworkPolicy"], key=lambda v: int(v.split(".")[1])) == [f"4.{m}" for m in range(12, 20)]
    assert "PodMonitor" in t.refused and "PodMonitor" not in t.always


@pytest.mark.parametrize("target,expected", [("4.9", "error"), ("4.10", None), ("4.20", None)])
def test_kind_support_follows_the_target_release(copy_fixture, target, expected):
    root = copy_fixture("rules/unsupported-manifest-kind/bad-since")
    os.remove(os.path.join(root, "expect.yaml"))
    res = check(["."], target=[target])
    got = [f.severity for f in res.findings if f.rule == "unsupported-manifest-kind"]
    assert got == ([expected] if expected else [])


def test_network_policy_older_than_backports_is_an_error(copy_fixture):
    root = copy_fixture("rules/unsupported-manifest-kind/bad-zstream")
    path = os.path.join(root, CSV)
    with open(path) as fh:
        text = fh.read().replace("minKubeVersion: 1.27.0", "minKubeVersion: 1.21.0")
    with open(path, "w") as fh:
        fh.write(text)
    res = check(["."], target=["4.11", "4.12", "4.20"])
    got = sorted((f.severity, tuple(f.ocp_versions)) for f in res.findings if f.rule == "unsupported-manifest-kind")
    assert got == [("error", ("4.11",)), ("warning", ("4.12",))]


def test_network_policy_off_in_minimal(copy_fixture):
    copy_fixture("rules/network-policy/bad")
    assert [f for f in check(["."], profile="minimal").findings if f.rule == "network-policy"] == []


def test_crd_version_removal_reports_only_checked_bundles(copy_fixture):
    copy_fixture("rules/crd-version-removal/bad")
    everything = check(["."])
    assert [f.bundle for f in everything.findings if f.rule == "crd-version-removal"] == ["operators/example-operator/1.1.0"]
    only_old = check(["."], changed=["operators/example-operator/1.0.0/manifests/example.com_widgets.yaml"])
    assert [f for f in only_old.findings if f.rule == "crd-version-removal"] == []
    only_new = check(["."], changed=["operators/example-operator/1.1.0/manifests/example.com_widgets.yaml"])
    assert len([f for f in only_new.findings if f.rule == "crd-version-removal"]) == 1


def test_fixes_apply_to_the_right_line(copy_fixture):
    root = copy_fixture("rules/owned-crd-missing/bad")
    res = check(["."])
    f = next(f for f in res.findings if f.rule == "owned-crd-missing")
    with open(os.path.join(root, CSV)) as fh:
        lines = fh.read().split("\n")
    assert lines[f.fix.line - 1] == "      - name: widget.example.com"
    assert f.fix.replacement == "      - name: widgets.example.com"


@pytest.mark.parametrize("written", ['"Mutating\\"Webhook"', "'Mutating''Webhook'", '"a \\\\"', "MutatingWebhook"])
def test_a_one_line_fix_replaces_the_whole_scalar(tmp_path, written):
    """Rules' one-line fixes (``rules.value_fix``) replace the scalar as written, up to its
    real closing quote -- past escaped quotes (\\" and '') -- so that the suggestion posted
    on a pull request leaves valid YAML with the new value."""
    import yaml

    from checker.load import Reader
    from checker.rules.lib.fixes import fix_value as value_fix

    path = tmp_path / "m.yaml"
    path.write_text(f"a:\n  type: {written}  # why\n  b: 1\n")
    sf = Reader(str(tmp_path), str(tmp_path)).yaml_file(str(path))
    node = sf.documents[0].get("a").get("type")
    fix = value_fix(sf, node, '"X"', "write X")
    assert fix is not None and fix.line == 2
    assert fix.replacement == '  type: "X"  # why'
    lines = path.read_text().split("\n")
    lines[1] = fix.replacement
    assert yaml.safe_load("\n".join(lines)) == {"a": {"type": "X", "b": 1}}


WRONG_TYPES = {
    CSV: """apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: example-operator.v1.0.0
spec:
  version: 1.0.0
  customresourcedefinitions:
    owned:
      - "widgets.example.com"
      - name: 42
        version: [v1]
        kind: {a: b}
      - name: widgets.example.com
        version: 7
  relatedImages:
    operator: quay.io/example/operator:v1
  install:
    spec:
      deployments:
        - spec:
            template:
              spec:
                serviceAccountName: [a, b]
        - "text"
        - spec: "text"
""",
    "manifests/crd.yaml": """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: [example.com]
  names: "Widget"
  versions: "v1"
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  versions:
    - "v1"
    - name: v2
      served: {}
      storage: [true]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: [x]
spec: "text"
---
apiVersion: v1
kind: ServiceAccount
metadata: "sa"
---
kind: [NetworkPolicy]
---
- a list
---
plain text
""",
}


@pytest.mark.parametrize("profile", ["community", "certified", "operatorhub", "minimal"])
def test_wrong_types_never_raise(copy_fixture, profile):
    root = copy_fixture("bundles/good")
    os.remove(os.path.join(root, "manifests", "example.com_widgets.yaml"))
    for rel, text in WRONG_TYPES.items():
        with open(os.path.join(root, rel), "w") as fh:
            fh.write(text)
    res = check(["."], profile=profile)
    assert [f.message for f in res.findings if f.rule == "internal-error"] == []
    mine = {f.rule for f in res.findings if f.rule in MINE}
    if profile != "minimal":
        assert {"related-image-invalid", "crd-owned-version"} <= mine


def test_good_fixture_bundles_are_clean_for_these_rules(copy_fixture):
    """Every good case of these rules reports none of them (not only its own rule)."""
    for rid in sorted(MINE):
        for case in sorted(os.listdir(os.path.join(FIXTURES, "rules", rid))):
            if not case.startswith("good"):
                continue
            root = copy_fixture(os.path.join("rules", rid, case), name=f"{rid}-{case}")
            res = check(["."])
            assert [(f.rule, f.path, f.message) for f in res.findings if f.rule in MINE] == [], (rid, case)
            os.chdir(FIXTURES)
            shutil.rmtree(root)


def test_no_missing_crd_when_a_manifest_does_not_parse(copy_fixture):
    root = copy_fixture("bundles/good")
    with open(os.path.join(root, "manifests", "example.com_widgets.yaml"), "a") as fh:
        fh.write("  broken: [unclosed\n")
    rules = {f.rule for f in check(["."]).findings}
    assert "yaml-syntax" in rules and "owned-crd-missing" not in rules


def test_bundle_size_verdicts_do_not_depend_on_bundles_measured_before(copy_fixture):
    """The measure skips compressing files whose size it knows from an earlier bundle (an
    operator's releases repeat their CRDs); whatever it knew, each bundle gets the verdict
    it gets when checked alone: a large compressible file shared by three releases, with a
    random blob that takes the second over the warning and keeps the third below it."""
    from checker.rules.format import bundle_size as bundle_manifests

    shared = "".join(f"  field{i}:\n    type: string\n    description: the field number {i} of the schema\n"
                     for i in range(40_000))
    root = copy_fixture("bundles/good")
    verdicts = {}
    for version, blob in (("0.1.0", 0), ("0.2.0", 500_000), ("0.3.0", 420_000)):
        b = os.path.join(root, "..", "op", version)
        shutil.copytree(root, b)
        with open(os.path.join(b, "manifests", "shared.yaml"), "w") as fh:
            fh.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n" + shared)
        if blob:
            rnd = random.Random(blob)
            data = base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(blob))).decode()
            with open(os.path.join(b, "manifests", "blob.yaml"), "w") as fh:
                fh.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: blob\ndata:\n  blob: " + data + "\n")
        size = _measure(b)
        verdicts[version] = ("warning" if size > MAX_BUNDLE_SIZE * WARN_PERCENT else None, size)
    assert [v for v, _ in verdicts.values()] == [None, "warning", None]
    assert all(s < MAX_BUNDLE_SIZE for _, s in verdicts.values())

    def found(paths):
        res = check(paths)
        return sorted((f.bundle.rsplit("/", 1)[-1], f.severity, f.message) for f in res.findings if f.rule == "bundle-size")

    bundle_manifests._SIZES.clear()
    together = found([os.path.join(root, "..", "op", v) for v in verdicts])
    alone = []
    for v in verdicts:
        bundle_manifests._SIZES.clear()
        alone += found([os.path.join(root, "..", "op", v)])
    assert together == sorted(alone)
    assert [(b, s) for b, s, _ in together] == [("0.2.0", "warning")]
