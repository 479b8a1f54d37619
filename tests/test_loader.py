"""The positioned YAML loader (checker/yamlload.py) and the file reader (checker/load.py).

Parsing is checked on text; reading on real files in tmp_path. Every input here is one that
real catalogs hold or that a hostile bundle could carry: the loader must return documents and
problems for all of them, never raise.
"""
import os

import pytest

from checker.load import Reader, load_bundle
from checker.nodes import Mapping, Sequence, Skipped, to_py, walk
from checker.yamlload import Limits, decode, parse


def doc(text, **kw):
    docs, problems = parse(text, **kw)
    assert not problems, [(p.rule, p.line, p.column, p.message) for p in problems]
    assert len(docs) == 1
    return docs[0]


def problems(text, **kw):
    return [(p.rule, p.line, p.column, p.severity) for p in parse(text, **kw)[1]]


# -- positions ----------------------------------------------------------------------------

def test_positions_of_keys_values_and_items_are_one_based():
    d = doc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    - a\n    -  b\n")
    assert isinstance(d, Mapping) and (d.line, d.col) == (1, 1)
    assert (d.key_node("kind").line, d.key_node("kind").col) == (2, 1)
    v = d.get("kind")
    assert (v.line, v.col, v.value, v.raw, v.style) == (2, 7, "ConfigMap", "ConfigMap", None)
    md = d.get("metadata")
    assert (md.line, md.col) == (4, 3)
    labels = md.get("labels")
    assert isinstance(labels, Sequence)
    assert [(i.line, i.col, i.value) for i in labels] == [(6, 7, "a"), (7, 8, "b")]


def test_flow_style_positions():
    d = doc('x: {a: 1, "b": [2, 3]}\n')
    b = d.get("x").get("b")
    assert (b.line, b.col) == (1, 16)
    assert [(i.line, i.col) for i in b] == [(1, 17), (1, 20)]
    assert d.get("x").key_node("b").style == '"'


# -- values as Kubernetes reads them --------------------------------------------------------

@pytest.mark.parametrize("text,value", [
    ("a: =", "="),  # the YAML 1.1 `value` tag: PyYAML's safe loaders cannot construct it
    ("a: '='", "="),
    ("a: yes", True),
    ("a: off", False),
    ("a: 'true'", "true"),
    ("a: 0x1F", 31),
    ("a: 1_000", 1000),
    ("a: 4.20", 4.2),
    ("a: '4.20'", "4.20"),
    ("a: ~", None),
    ("a:", None),
    ("a: 2001-12-14", "2001-12-14"),  # timestamps stay text, as in the API server's JSON
    ("a: .inf", float("inf")),
    ("a: !!str 12", "12"),
    ("a: !!int 12", 12),
    ("a: !!binary aGVsbG8=", "aGVsbG8="),
    ("a: !custom x", "x"),
    # text that does not fit its explicit tag keeps its text (never an exception)
    ("a: !!bool maybe", "maybe"),
    ("a: !<tag:yaml.org,2002:bool> xyz", "xyz"),
    ("a: !!int ''", ""),
    ("a: !!int '-'", "-"),
    ("a: !!int '_'", "_"),
    ("a: !!float ''", ""),
    ("a: !!float '.'", "."),
    ("a: !!int 0b102", "0b102"),
    ("a: !!null xyz", None),
])
def test_scalar_values(text, value):
    assert to_py(doc(text + "\n")) == {"a": value}


def test_crd_enum_with_bare_equals_sign_loads():
    text = ("spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        properties:\n          op:\n"
            "            enum:\n            - =\n            - '!='\n  x:\n  - =\n")
    d = doc(text, skip_keys=frozenset({"openAPIV3Schema"}))
    assert to_py(d.get("spec").get("x")) == ["="]
    assert isinstance(d.get("spec").get("versions")[0].get("schema").get("openAPIV3Schema"), Skipped)
    full = doc(text)
    enum = full.get("spec").get("versions")[0].get("schema").get("openAPIV3Schema").get("properties").get("op").get("enum")
    assert [i.value for i in enum] == ["=", "!="]


def test_python_tags_are_never_constructed(tmp_path):
    marker = tmp_path / "pwned"
    text = (f'a: !!python/object/apply:os.system ["touch {marker}"]\n'
            f'b: !!python/name:os.system ""\n'
            f'c: !!python/object:builtins.dict {{x: 1}}\n')
    d = doc(text)
    assert to_py(d) == {"a": [f"touch {marker}"], "b": "", "c": {"x": 1}}
    assert not marker.exists()


# -- documents ----------------------------------------------------------------------------

def test_several_documents_keep_their_own_positions():
    docs, probs = parse("a: 1\n---\nb: 2\n---\n---\n# only a comment\n---\nc: 3\n...\n")
    assert not probs
    assert [to_py(d) for d in docs] == [{"a": 1}, {"b": 2}, None, None, {"c": 3}]
    assert docs[4].key_node("c").line == 8


@pytest.mark.parametrize("text,n", [("", 0), ("# comment\n", 0), ("---\n", 1), ("--- \n...\n", 1)])
def test_empty_documents_are_none(text, n):
    docs, probs = parse(text)
    assert not probs and docs == [None] * n


def test_anchors_do_not_cross_documents():
    assert problems("a: &x 1\n---\nb: *x\n") == [("yaml-syntax", 3, 4, None)]


# -- duplicate keys -------------------------------------------------------------------------

def test_duplicate_key_with_a_different_value_is_an_error_and_the_last_wins():
    docs, probs = parse("metadata:\n  name: a\n  name: b\n")
    assert [(p.rule, p.line, p.column, p.severity) for p in probs] == [("yaml-duplicate-key", 3, 3, None)]
    assert "first at line 2" in probs[0].message
    assert docs[0].get("metadata").str("name") == "b"


def test_duplicate_key_with_the_same_value_is_a_warning():
    assert problems("a: 1\nb: 2\na: 1\n") == [("yaml-duplicate-key", 3, 1, "warning")]


def test_duplicate_keys_are_found_inside_skipped_subtrees_and_flow_mappings():
    text = "spec:\n  openAPIV3Schema:\n    type: object\n    type: array\n  f: {x: 1, x: 2}\n"
    assert problems(text, skip_keys=frozenset({"openAPIV3Schema"})) == [
        ("yaml-duplicate-key", 4, 5, None), ("yaml-duplicate-key", 5, 13, None)]


def test_duplicate_mapping_values_compare_as_different():
    # two nested mappings under one key: the second silently replaces the first
    assert problems("a:\n  x: 1\na:\n  x: 1\n") == [("yaml-duplicate-key", 3, 1, None)]


def test_merge_keys_are_merged_not_duplicates():
    d = doc("base: &b {x: 1, y: 1}\nm:\n  <<: *b\n  y: 2\n")
    assert to_py(d.get("m")) == {"y": 2, "x": 1}


# -- syntax errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("text,line,col", [
    ("a: [1, 2\n", 2, 1),
    ("a:\n\tb: 1\n", 2, 1),  # a tab where indentation belongs
    ('a: "open\n', 2, 1),
    ("a: b: c\n", 1, 5),
    ("- a\nb: 1\n", 2, 1),
    ("a: *undefined\n", 1, 4),
    ("a: &r [*r]\n", 1, 8),  # an anchor cannot refer to itself
    ("%YAML 9.9\n---\na: 1\n", 1, 1),
])
def test_syntax_errors_have_positions(text, line, col):
    docs, probs = parse(text)
    assert [(p.rule, p.line, p.column) for p in probs] == [("yaml-syntax", line, col)]
    assert "YAML syntax error" in probs[0].message


def test_documents_before_a_syntax_error_are_kept():
    docs, probs = parse("a: 1\n---\nb: [\n")
    assert [to_py(d) for d in docs] == [{"a": 1}]
    assert probs[0].rule == "yaml-syntax"


def test_control_characters_are_a_syntax_error_not_an_exception():
    docs, probs = parse("a: b\x07c\n")
    assert [(p.rule, p.line, p.column) for p in probs] == [("yaml-syntax", 1, 5)]


# -- limits ---------------------------------------------------------------------------------

def _nested(depth):
    return "a: " + "[" * depth + "]" * depth + "\n"


def test_depth_limit():
    lim = Limits(max_depth=32)
    assert problems(_nested(31), limits=lim) == []
    # only olm-check stops there (nothing else is known to refuse the depth): a warning
    assert problems(_nested(32), limits=lim) == [("yaml-limits", 1, 35, "warning")]


def test_default_depth_limit_accepts_real_manifests_and_refuses_absurd_ones():
    default = Limits().max_depth
    assert 64 <= default <= 200  # the deepest real manifest nests 58 levels
    assert problems(_nested(60)) == []
    assert problems(_nested(5000))[0][0] == "yaml-limits"


def test_block_style_nesting_counts_too():
    text = "".join(" " * i + f"k{i}:\n" for i in range(40)) + " " * 40 + "v: 1\n"
    assert problems(text, limits=Limits(max_depth=32))[0][:2] == ("yaml-limits", 33)


def test_alias_bomb_is_refused_at_the_alias_that_crosses_the_limit():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for c in "bcdefghi":
        lines.append(f"{c}: &{c} [" + ",".join(["*" + prev] * 9) + "]")
        prev = c
    text = "\n".join(lines) + "\n"
    probs = parse(text)[1]
    assert [(p.rule, p.line) for p in probs] == [("yaml-limits", 6)]
    assert "alias bomb" in probs[0].message
    assert parse(text, limits=Limits(max_alias_nodes=10**9))[1] == []


def test_aliases_within_the_limit_are_fine():
    assert problems("a: &a {x: 1}\nb: *a\nc: *a\n") == []


# -- decoding -------------------------------------------------------------------------------

def test_decode_utf8_with_bom():
    text, problem = decode(b"\xef\xbb\xbfa: 1\n")
    assert problem is None and text == "a: 1\n"


@pytest.mark.parametrize("data,line,col,words", [
    (b"a: 1\nb: caf\xe9\n", 2, 7, "not valid UTF-8"),
    ("a: 1\n".encode("utf-16"), 1, 1, "UTF-16"),
    ("a: 1\n".encode("utf-16-be").join([b"\xfe\xff", b""]), 1, 1, "UTF-16"),
    ("a: 1\n".encode("utf-32"), 1, 1, "UTF-32"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00", 1, 1, "binary"),
])
def test_decode_refusals(data, line, col, words):
    text, problem = decode(data)
    assert text is None
    assert (problem.rule, problem.line, problem.column) == ("yaml-limits", line, col)
    assert words in problem.message


# -- the reader: real files ------------------------------------------------------------------

def _reader(root, **kw):
    return Reader(str(root), str(root), **kw)


def test_reader_refuses_a_symlink_out_of_the_tree_and_follows_one_inside(tmp_path):
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "real.yaml").write_text("a: 1\n")
    os.symlink("/etc/passwd", tree / "passwd.yaml")
    os.symlink("sub/real.yaml", tree / "inside.yaml")
    os.symlink("missing.yaml", tree / "broken.yaml")
    r = _reader(tree)
    out = r.yaml_file(str(tree / "passwd.yaml"))
    assert out.text is None and out.documents == []
    assert [(p.rule, p.line) for p in out.problems] == [("yaml-limits", 1)]
    assert "outside the checked tree" in out.problems[0].message
    ok = r.yaml_file(str(tree / "inside.yaml"))
    assert ok.problems == [] and to_py(ok.documents[0]) == {"a": 1}
    broken = r.yaml_file(str(tree / "broken.yaml"))
    assert "broken" in broken.problems[0].message


def test_reader_refuses_files_reached_through_a_directory_symlink_out_of_the_tree(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.yaml").write_text("secret: 1\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    os.symlink(str(outside), tree / "linked")
    out = _reader(tree).yaml_file(str(tree / "linked" / "x.yaml"))
    assert out.text is None and out.raw is None
    assert out.problems[0].rule == "yaml-limits" and "outside the checked tree" in out.problems[0].message


def test_reader_refuses_a_fifo_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")
    out = _reader(tmp_path).yaml_file(str(tmp_path / "pipe.yaml"))
    assert [(p.rule, p.line) for p in out.problems] == [("yaml-limits", 1)]
    assert "not a regular file" in out.problems[0].message


def test_reader_refuses_a_file_over_the_size_limit_without_reading_it(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(3 * 1048576)  # sparse: costs nothing
    out = _reader(tmp_path, limits=Limits(max_file_bytes=2 * 1048576)).yaml_file(str(big))
    assert out.raw is None and out.text is None
    assert "3.0 MiB" in out.problems[0].message and "2 MiB" in out.problems[0].message


def test_reader_display_paths(tmp_path):
    (tmp_path / "b").mkdir()
    f = tmp_path / "b" / "x.yaml"
    f.write_text("a: 1\n")
    assert _reader(tmp_path).yaml_file(str(f)).rel == "b/x.yaml"
    other = Reader(str(tmp_path), str(tmp_path / "elsewhere"))
    assert other.rel(str(f)) == str(f)  # outside the display base: not a '../' path
    other.given = {str(tmp_path / "b"): "../b"}
    assert other.rel(str(f)) == "../b/x.yaml"  # as the user gave it


def test_load_bundle_reads_every_document_and_reports_subdirectories(tmp_path):
    b = tmp_path / "bundle"
    (b / "manifests" / "nested").mkdir(parents=True)
    (b / "metadata").mkdir()
    (b / "metadata" / "annotations.yaml").write_text(
        "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n")
    (b / "manifests" / "multi.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n")
    bundle = load_bundle(_reader(tmp_path), str(b))
    assert bundle.mediatype == "registry+v1"
    assert [(m.kind, m.index, m.root.line) for m in bundle.manifests] == [("ConfigMap", 0, 1), ("Secret", 2, 6)]
    assert [w for w, _m, _d in bundle.layout_problems] == ["bundle/manifests/nested"]


def test_walk_visits_shared_nodes_once():
    d = doc("a: &x {k: [1, 2]}\nb: *x\nc: *x\n")
    paths = [p for p, _ in walk(d)]
    assert ("a", "k", 0) in paths and ("b",) in paths and ("b", "k") not in paths


def test_kubernetes_decoder_refusals_are_found_inside_skipped_subtrees_too():
    # go-yaml v2 (sigs.k8s.io/yaml) refuses a merge key without a mapping, a list key and a null
    # key wherever they are; the CRD schema olm-check does not build into nodes included
    from checker.fastyaml import parse_fast
    from checker.load import SKIP_KEYS

    text = ("spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n"
            "        properties:\n          a:\n            <<: 5\n          ? [x, y]\n          : z\n          ~: n\n")
    want = [("yaml-syntax", 9, 13, None), ("yaml-syntax", 10, 13, None), ("yaml-syntax", 12, 11, None)]
    assert problems(text, skip_keys=SKIP_KEYS) == want
    assert problems(text) == want
    fast = parse_fast(text, Limits(), SKIP_KEYS)
    assert fast is None or [(p.rule, p.line, p.column, p.severity) for p in fast[1]] == want


def test_valid_merges_and_scalar_keys_are_not_refusals():
    text = ("base: &b {x: 1}\nlist: &l [{y: 2}]\nm:\n  <<: *b\n  <<: [*b, {z: 3}]\n"
            "n:\n  \"<<\": 5\n  \"null\": 1\n  1: one\n  true: yes\n")
    assert problems(text) == []
