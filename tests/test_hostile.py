"""Hostile inputs: each is a real file on disk, in a bundle copied from fixtures/bundles/good,
checked beside a second bundle with a known defect. Each hostile input gives its finding
(rule, file, line) and never a traceback or an internal error, and the run goes on: the
hostile bundle's CSV is still read and the other bundle's finding still comes out.

Every case runs through the library (``checker.api.check``, one case at a time) and all cases
together through the command line (one ``olm-check check --format json`` over a tree holding
every case as its own bundle, the way a catalog with many broken bundles is checked).
"""
import json
import os
import shutil
from dataclasses import dataclass, field
from typing import Callable, Optional

import pytest

from checker.api import check
from checker.report import render
from checker.report.markdown import summary
from checker.rules import RULES
from checker.yamlload import Limits

from conftest import FIXTURES, FIXTURES_SRC
from helpers import run_cli

GOOD = os.path.join(FIXTURES, "bundles", "good")
CSV = "manifests/example-operator.clusterserviceversion.yaml"
CRD = "manifests/example.com_widgets.yaml"
CSV_NAME = "example-operator.v1.0.0"


@dataclass
class Case:
    id: str
    files: dict  # bundle-relative path -> bytes | str | callable(abs_path)
    expect: list  # (rule, bundle-relative path, line, severity or None)
    config: Optional[str] = None  # .olm-check.yaml at the tree root
    csv_read: bool = True  # the bundle's CSV is still read despite the hostile file
    quiet: list = field(default_factory=list)  # bundle-relative paths that must have no finding
    clean: bool = False  # the bundle must have no finding at all
    after: Optional[Callable] = None  # extra assertion on (bundle dir)


def _write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if callable(content):
        content(path)
    elif isinstance(content, bytes):
        with open(path, "wb") as fh:
            fh.write(content)
    else:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(content)


def _edit(rel, old, new):
    """Content maker: the good bundle's file ``rel`` with ``old`` replaced by ``new``."""
    with open(os.path.join(GOOD, rel), encoding="utf-8") as fh:
        text = fh.read()
    assert old in text, old
    return text.replace(old, new, 1)


def _line_of(text, needle):
    return text[: text.index(needle)].count("\n") + 1


def _alias_bomb():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for c in "bcdefghi":
        lines.append(f"{c}: &{c} [" + ",".join(["*" + prev] * 9) + "]")
        prev = c
    return "\n".join(lines) + "\n"


def _nested(depth):
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: " + "[" * depth + "]" * depth + "\n"


def _big(path):
    # 50 MB of real (not sparse) YAML-looking text
    chunk = ("# " + "x" * 1021 + "\n").encode() * 1024  # 1 MiB
    with open(path, "wb") as fh:
        for _ in range(50):
            fh.write(chunk)


def _symlink(target):
    return lambda path: os.symlink(target, path)


def _fifo(path):
    os.mkfifo(path)


def _weird_names(path):
    """Files whose names are not UTF-8, hold a newline or a right-to-left override."""
    d = os.path.dirname(path)
    for name in (b"bad\xff\xfename.yaml", "new\nline.yaml".encode(), "rtl\u202eyaml.yaml".encode()):
        with open(os.path.join(os.fsencode(d), name), "wb") as fh:
            fh.write(b"a: [\n")


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"
PY_MARKER = "olm-check-pwned-marker"

csv_spec_number = _edit(CSV, "\nspec:\n", "\nspec: 42\nunused:\n")
# the example's size (1) stays allowed, so alm-examples-schema has nothing to say either
csv_enum = _edit(CRD, "enum: [1, 2, 3]", "enum:\n                  - =\n                  - '!='\n                  - 1")
multi_docs = ("---\n" + CM + "---\n# a comment\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
              "---\napiVersion: v1\nkind: Service\nmetadata:\n  labels: {a: b}\nspec:\n  ports: [{port: 80}]\n")

CASES = [
    Case("syntax-error", {"manifests/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "open\ndata: {}\n'},
         [("yaml-syntax", "manifests/cm.yaml", 6, "error")]),
    Case("duplicate-key-different", {"manifests/cm.yaml": CM + "  a: c\n"},
         [("yaml-duplicate-key", "manifests/cm.yaml", 7, "error")]),
    Case("duplicate-key-same", {"manifests/cm.yaml": CM + "  a: b\n"},
         [("yaml-duplicate-key", "manifests/cm.yaml", 7, "warning")]),
    Case("alias-bomb", {"manifests/bomb.yaml": _alias_bomb()},
         [("yaml-limits", "manifests/bomb.yaml", 6, "error")]),
    Case("nesting-5000", {"manifests/deep.yaml": _nested(5000)},
         [("yaml-limits", "manifests/deep.yaml", 6, "warning")]),  # only olm-check stops: not read, not refused
    Case("nesting-50-default-limit", {"manifests/deep.yaml": _nested(50)}, [], quiet=["manifests/deep.yaml"]),
    Case("nesting-50-max-depth-32", {"manifests/deep.yaml": _nested(50)},
         [("yaml-limits", "manifests/deep.yaml", 6, "warning")], config="limits: {max_depth: 32}\n"),
    Case("file-50mb", {"manifests/big.yaml": _big}, [("yaml-limits", "manifests/big.yaml", 1, "error")]),
    Case("binary", {"manifests/logo.yaml": bytes(range(256)) * 8}, [("yaml-limits", "manifests/logo.yaml", 1, "error")]),
    Case("not-utf8", {"manifests/cm.yaml": CM.encode().replace(b"name: settings", b"name: caf\xe9")},
         [("yaml-limits", "manifests/cm.yaml", 4, "error")]),
    Case("utf16", {"manifests/cm.yaml": CM.encode("utf-16")}, [("yaml-limits", "manifests/cm.yaml", 1, "warning")]),
    Case("symlink-to-etc-passwd", {"manifests/passwd.yaml": _symlink("/etc/passwd")},
         [("yaml-limits", "manifests/passwd.yaml", 1, "error")]),
    Case("symlink-inside-tree", {"extra/cm.yaml": CM + "  a: c\n", "manifests/cm.yaml": _symlink("../extra/cm.yaml")},
         [("yaml-duplicate-key", "manifests/cm.yaml", 7, "error")]),  # followed: its content is checked
    Case("fifo", {"manifests/pipe.yaml": _fifo, "metadata/pipe.yaml": _fifo},
         [("yaml-limits", "manifests/pipe.yaml", 1, "warning"), ("yaml-limits", "metadata/pipe.yaml", 1, "warning")]),
    Case("spec-text", {"manifests/svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec: \"text\"\n"},
         [("manifest-invalid", "manifests/svc.yaml", 5, "error")]),
    Case("metadata-list", {"manifests/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: []\n"},
         [("manifest-invalid", "manifests/cm.yaml", 3, "error")]),
    Case("annotations-list", {"manifests/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n  - a\n"},
         [("manifest-invalid", "manifests/cm.yaml", 6, "error")]),
    Case("csv-spec-number", {CSV: csv_spec_number},
         [("manifest-invalid", CSV, _line_of(csv_spec_number, "spec: 42"), "error")]),
    Case("annotations-yaml-list", {"metadata/annotations.yaml": "- operators.operatorframework.io.bundle.package.v1: x\n"},
         [("bundle-layout", "metadata/annotations.yaml", 1, "error")]),
    Case("annotations-yaml-scalar-annotations", {"metadata/annotations.yaml": "annotations: registry+v1\n"},
         [("bundle-layout", "metadata/annotations.yaml", 1, "error")]),
    Case("empty-files", {"manifests/empty.yaml": "", "manifests/comment.yaml": "# nothing\n"}, [],
         quiet=["manifests/empty.yaml", "manifests/comment.yaml"]),
    Case("empty-annotations-yaml", {"metadata/annotations.yaml": ""},
         [("bundle-layout", "metadata/annotations.yaml", 1, "error")]),
    Case("only-document-markers", {"manifests/dashes.yaml": "---\n", "manifests/many.yaml": "---\n---\n...\n"}, [],
         quiet=["manifests/dashes.yaml", "manifests/many.yaml"]),
    Case("tabs", {"manifests/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n"},
         [("yaml-syntax", "manifests/cm.yaml", 4, "error")]),
    Case("python-tags", {"manifests/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        f"  name: !!python/object/apply:os.system [\"touch {PY_MARKER}\"]\n"
        "data:\n  a: !!python/name:os.system ''\n  b: !!python/object:builtins.dict {x: 1}\n")},
        [("manifest-invalid", "manifests/cm.yaml", 4, "error")],
        after=lambda d: not os.path.exists(os.path.join(d, PY_MARKER)) and not os.path.exists(PY_MARKER)),
    Case("crd-enum-bare-equals", {CRD: csv_enum}, [], clean=True),
    Case("several-documents", {"manifests/objects.yaml": multi_docs},
         [("manifest-invalid", "manifests/objects.yaml", _line_of(multi_docs, "  labels: {a: b}"), "error")],
         quiet=[]),
    Case("directory-symlink-out-of-tree", {"manifests/linked": _symlink("/etc")},
         [("yaml-limits", "manifests/linked", 1, "error")]),
    Case("undefined-alias", {"manifests/cm.yaml": CM + "  c: *nowhere\n"},
         [("yaml-syntax", "manifests/cm.yaml", 7, "error")]),
    Case("file-names", {"manifests/weird": _weird_names},
         [("yaml-syntax", "manifests/bad\\xff\\xfename.yaml", 2, "error"), ("yaml-syntax", "manifests/new\\nline.yaml", 2, "error"),
          ("yaml-syntax", "manifests/rtl\\u202eyaml.yaml", 2, "error")]),
    # YAML that PyYAML reads but Kubernetes' decoder (sigs.k8s.io/yaml, go-yaml v2) refuses
    Case("merge-key-scalar", {"manifests/cm.yaml": CM.replace("  name: settings\n", "  name: settings\n  <<: 5\n")},
         [("yaml-syntax", "manifests/cm.yaml", 5, "error")]),
    Case("merge-key-alias-to-list", {"manifests/cm.yaml": "x: &x [1, 2]\n" + CM + "  c:\n    <<: *x\n"},
         [("yaml-syntax", "manifests/cm.yaml", 9, "error")]),
    Case("complex-and-null-keys", {"manifests/cm.yaml": CM + "  ? [a, b]\n  : c\n  ? {k: v}\n  : d\n  ~: e\n"},
         [("yaml-syntax", "manifests/cm.yaml", 7, "error"), ("yaml-syntax", "manifests/cm.yaml", 9, "error"),
          ("yaml-syntax", "manifests/cm.yaml", 11, "error")]),
    Case("api-version-escaped-garbage", {"manifests/sm.yaml": 'apiVersion: "\\x01\\x02\\x7f"\nkind: ServiceMonitor\nmetadata:\n  name: m\n'},
         [("manifest-invalid", "manifests/sm.yaml", 1, "error")]),
    Case("api-version-raw-control-bytes", {"manifests/sm.yaml": b"apiVersion: \x01\x02\nkind: ServiceMonitor\nmetadata:\n  name: m\n"},
         [("yaml-syntax", "manifests/sm.yaml", 1, "error")]),
    Case("annotations-yaml-directory", {"metadata/annotations.yaml/annotations.yaml": lambda p: None},
         [("bundle-layout", "metadata/annotations.yaml", 1, "error")], quiet=["metadata"]),
    Case("manifests-symlink-out-of-tree", {"manifests": _symlink("/etc")},
         [("yaml-limits", "manifests", 1, "error")], csv_read=False),
    Case("metadata-symlink-out-of-tree", {"metadata": _symlink("/etc")},
         [("yaml-limits", "metadata", 1, "error")]),
    Case("mistagged-scalars", {"manifests/cm.yaml": CM + "  c: !!bool maybe\n  d: !!int ''\n"}, [],
         quiet=["manifests/cm.yaml"]),
]

# JSON text Python's parser refuses with a plain ValueError (no position): an integer of more
# than 4,300 digits; the annotation is reported, the run goes on
csv_huge_int = _edit(CSV, "  annotations:\n", "  annotations:\n    olm.properties: '[{\"type\": \"olm.maxOpenShiftVersion\", "
                     "\"value\": " + "9" * 5000 + "}]'\n")
CASES += [
    Case("label-non-scalar-key", {"manifests/cm.yaml": CM.replace("  name: settings\n", "  name: settings\n  labels:\n    ? [a, b]\n    : 1\n")},
         [("yaml-syntax", "manifests/cm.yaml", 6, "error")]),
    Case("olm-properties-huge-integer", {CSV: csv_huge_int},
         [("max-ocp-version-syntax", CSV, _line_of(csv_huge_int, "olm.properties"), "error")]),
    Case("config-api-deprecated-without-removal", {"manifests/pdb.yaml": "apiVersion: example.com/v1alpha1\nkind: Gadget\nmetadata:\n  name: g\n"},
         [("deprecated-api", "manifests/pdb.yaml", 1, "warning")],
         config="apis:\n  removed:\n    - {group: example.com, version: v1alpha1, kinds: [Gadget], deprecated: \"1.20\", use: example.com/v1}\n"),
]

OTHER_CSV = _edit(CSV, "  displayName: Example Operator\n", "  displayName: Example Operator\n  displayName: Other\n")
# the other bundle repeats spec.displayName: a finding that must come out whatever the hostile bundle holds
OTHER_FINDING = ("yaml-duplicate-key", "other/" + CSV, _line_of(OTHER_CSV, "  displayName: Other"), "error")


def _make_tree(root, cases):
    """root/<case.id>/ for each case (the good bundle plus the hostile files) and root/other/."""
    for case in cases:
        d = os.path.join(root, case.id)
        shutil.copytree(GOOD, d, symlinks=True)
        for rel, content in case.files.items():
            p = os.path.join(d, rel)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)  # a directory replaced by a link
            elif os.path.lexists(p):
                os.remove(p)
            elif os.path.isfile(os.path.dirname(p)):
                os.remove(os.path.dirname(p))  # a file replaced by a directory
            _write(p, content)
    other = os.path.join(root, "other")
    shutil.copytree(GOOD, other)
    _write(os.path.join(other, CSV), OTHER_CSV)


def _assert_case(case, findings, bundles, prefix):
    """``findings``: dicts with rule/severity/path/line; ``bundles``: report bundle entries."""
    got = [(f["rule"], f["path"], f["line"], f["severity"]) for f in findings]
    assert not [f for f in findings if f["rule"] == "internal-error"], [f["message"] for f in findings if f["rule"] == "internal-error"]
    for rule, rel, line, sev in case.expect:
        want = (rule, prefix + rel, line, sev)
        assert want in got, f"{case.id}: expected {want} in {[g for g in got if g[1].startswith(prefix)]}"
    for rel in case.quiet:
        assert not [g for g in got if g[1] == prefix + rel], f"{case.id}: unexpected findings on {rel}: {got}"
    if case.clean:
        assert not [g for g in got if g[1].startswith(prefix)], f"{case.id}: expected no findings, got {got}"
    for f in findings:
        assert "Traceback" not in f["message"] and "object at 0x" not in f["message"]
        assert f["line"] >= 1 and f["column"] >= 1
    entry = [b for b in bundles if b["path"] == prefix.rstrip("/")]
    assert entry, f"{case.id}: bundle missing from the report: {[b['path'] for b in bundles]}"
    if case.csv_read:
        assert entry[0]["csv"] == CSV_NAME, f"{case.id}: the CSV was not read ({entry[0]})"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_via_api(case, tmp_path, monkeypatch):
    root = tmp_path / "tree"
    _make_tree(str(root), [case])
    if case.config:
        (root / ".olm-check.yaml").write_text(case.config)
    monkeypatch.chdir(root)
    res = check(["."])
    report = res.report
    assert json.loads(json.dumps(report)) == report  # the report is plain JSON
    for fmt in ("text", "json", "sarif", "github"):  # every format renders, as valid UTF-8
        render(fmt, report, res.findings, RULES).encode("utf-8")
    summary(report, res.findings).encode("utf-8")
    _assert_case(case, report["findings"], report["bundles"], case.id + "/")
    # the run went on: the other bundle was checked and its finding reported
    assert OTHER_FINDING in [(f["rule"], f["path"], f["line"], f["severity"]) for f in report["findings"]]
    assert sorted(b["path"] for b in report["bundles"]) == sorted([case.id, "other"])
    if case.after is not None:
        assert case.after(str(root / case.id))


def test_every_hostile_input_at_once_via_the_cli(tmp_path):
    """All cases (those without their own config) in one tree, one CLI run with worker
    processes: exit 1 (errors found), JSON on stdout, nothing on stderr, no traceback."""
    cases = [c for c in CASES if c.config is None]
    root = tmp_path / "tree"
    _make_tree(str(root), cases)
    p = run_cli("check", ".", "--format", "json", "--jobs", "2", cwd=str(root))
    assert "Traceback" not in p.stderr and p.stderr == "", p.stderr
    assert p.returncode == 1
    report = json.loads(p.stdout)
    for case in cases:
        _assert_case(case, report["findings"], report["bundles"], case.id + "/")
        if case.after is not None:
            assert case.after(str(root / case.id))
    assert OTHER_FINDING in [(f["rule"], f["path"], f["line"], f["severity"]) for f in report["findings"]]
    assert report["summary"]["bundles"] == len(cases) + 1


def test_max_depth_config_via_the_cli(tmp_path):
    case = next(c for c in CASES if c.id == "nesting-50-max-depth-32")
    root = tmp_path / "tree"
    _make_tree(str(root), [case])
    (root / ".olm-check.yaml").write_text(case.config)
    p = run_cli("check", ".", "--format", "json", cwd=str(root))
    assert p.returncode == 1 and p.stderr == ""
    report = json.loads(p.stdout)
    _assert_case(case, report["findings"], report["bundles"], case.id + "/")
    f = [f for f in report["findings"] if f["rule"] == "yaml-limits"][0]
    assert "32 levels" in f["message"] and "max_depth" in f["detail"]  # the limit, and how to raise it


def test_text_output_of_hostile_inputs_has_no_reprs(tmp_path):
    cases = [c for c in CASES if c.id in ("binary", "python-tags", "csv-spec-number", "symlink-to-etc-passwd")]
    root = tmp_path / "tree"
    _make_tree(str(root), cases)
    p = run_cli("check", ".", cwd=str(root))
    assert p.returncode == 1 and p.stderr == ""
    for line in p.stdout.splitlines():
        assert "Traceback" not in line and "<checker." not in line and "Scalar(" not in line and "Mapping(" not in line
    assert "root:x:0:0" not in p.stdout  # nothing of /etc/passwd leaks into the report


def test_default_depth_limit_is_documented_consistently():
    """The documentation, the yaml-limits explanation and the default agree on the depth limit."""
    from checker.rules import RULES, load_all

    load_all()
    depth = Limits().max_depth
    readme = ""
    for doc in ("usage.md", "configuration.md"):  # the README's reference, moved to docs/
        with open(os.path.join(os.path.dirname(FIXTURES_SRC), "docs", doc), encoding="utf-8") as fh:
            readme += fh.read()
    assert f"nests deeper than {depth} levels" in readme
    assert f"max_depth: {depth}" in readme
    assert f"depth limit ({depth})" in RULES["yaml-limits"].explanation
