"""alm-examples-schema: examples validated against the CRD version's schema as the API server
validates a created object (bundles written to disk, checked through the public API)."""
import json
import os

import pytest

from checker.api import check
from conftest import FIXTURES

CSV = "manifests/example-operator.clusterserviceversion.yaml"
CRD = "manifests/example.com_widgets.yaml"


def _crd_v1(schema: dict, served: bool = True, extra_version: bool = False) -> str:
    versions = [{"name": "v1", "served": served, "storage": True, "schema": {"openAPIV3Schema": schema}}]
    if extra_version:
        versions.append({"name": "v2", "served": True, "storage": False,
                         "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}})
    return json.dumps({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
                 "versions": versions},
    }, indent=2)


def _bundle(copy_fixture, crd_text: str, examples: list, crd_name: str = CRD) -> None:
    root = copy_fixture("rules/alm-examples-schema/good")
    import os

    os.remove(os.path.join(root, CRD))
    with open(os.path.join(root, crd_name), "w") as fh:
        fh.write(crd_text)
    path = os.path.join(root, CSV)
    with open(path) as fh:
        text = fh.read()
    a = text.index("    alm-examples: |-\n")
    b = text.index("    capabilities:")
    block = "    alm-examples: |-\n" + "".join(f"      {line}\n" for line in json.dumps(examples, indent=1).split("\n"))
    with open(path, "w") as fh:
        fh.write(text[:a] + block + text[b:])


def _mine():
    res = check(["."])
    assert not [f for f in res.findings if f.rule == "internal-error"]
    return [f for f in res.findings if f.rule == "alm-examples-schema"]


def _ex(spec, name="w", version="v1"):
    return {"apiVersion": f"example.com/{version}", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


SPEC = {"type": "object", "properties": {"spec": {"type": "object", "properties": {}}}}


def _with(props: dict, **spec_kw) -> dict:
    s = json.loads(json.dumps(SPEC))
    s["properties"]["spec"]["properties"] = props
    s["properties"]["spec"].update(spec_kw)
    return s


def test_formats_the_api_server_checks_and_ignores(copy_fixture):
    schema = _with({"when": {"type": "string", "format": "date-time"}, "ip": {"type": "string", "format": "ipv4"},
                    "free": {"type": "string", "format": "not-a-k8s-format"}, "uid": {"type": "string", "format": "uuid"}})
    _bundle(copy_fixture, _crd_v1(schema), [
        _ex({"when": "yesterday", "ip": "10.0.0.1", "free": "anything", "uid": "0a1b2c3d-0000-4000-8000-000000000000"}, "a"),
        _ex({"when": "2024-01-02T03:04:05Z", "ip": "300.1.1.1", "free": "x", "uid": "nope"}, "b"),
    ])
    got = _mine()
    msgs = sorted(f.message + " " + f.detail for f in got)  # the example's name is in the detail
    assert len(got) == 3, msgs
    assert all(f.severity == "warning" for f in got)
    assert any("spec.when" in m and "'a'" in m and "date-time" in m.replace("datetime", "date-time") for m in msgs), msgs
    assert any("spec.ip" in m and "'b'" in m for m in msgs), msgs
    assert any("spec.uid" in m for m in msgs), msgs


def test_bounds_pattern_and_int_or_string(copy_fixture):
    schema = _with({"replicas": {"type": "integer", "minimum": 1, "maximum": 5, "exclusiveMaximum": True},
                    "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 4},
                    "port": {"x-kubernetes-int-or-string": True}, "tags": {"type": "array", "maxItems": 1, "items": {"type": "string"}}})
    _bundle(copy_fixture, _crd_v1(schema), [_ex({"replicas": 5, "name": "Abcdef", "port": True, "tags": ["a", 2]})])
    got = _mine()
    text = " | ".join(f.message for f in got)
    assert "spec.replicas is 5; the schema wants less than 5" in text
    assert "spec.name" in text and "pattern" in text and "at most 4" in text
    assert "spec.port is a boolean" in text and "int-or-string" in text
    assert "spec.tags has 2 items" in text and "spec.tags[1] is an integer" in text
    # each points at its own value inside the annotation
    assert len({(f.line, f.column) for f in got}) >= 4


def test_a_version_the_crd_does_not_serve_is_an_error(copy_fixture):
    _bundle(copy_fixture, _crd_v1(SPEC, served=False), [_ex({})])
    got = _mine()
    assert len(got) == 1 and got[0].severity == "warning" and "does not serve" in got[0].message


def test_v1beta1_schema_without_pruning(copy_fixture):
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "version": "v1", "names": {"kind": "Widget", "plural": "widgets"},
                 "validation": {"openAPIV3Schema": _with({"size": {"type": "integer"}})}},
    }
    _bundle(copy_fixture, json.dumps(crd, indent=2), [_ex({"size": "big", "unknown": 1})])
    got = _mine()
    # v1beta1 preserves unknown fields unless preserveUnknownFields: false: only the type error
    assert [(f.severity, "spec.size" in f.message) for f in got] == [("warning", True)]


def test_embedded_resource_and_metadata_are_not_pruned(copy_fixture):
    schema = _with({"template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                 "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}})
    _bundle(copy_fixture, _crd_v1(schema, extra_version=True), [
        {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"a": "b"}, "annotations": {"x": "y"}},
         "spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": []}}}},
        {"apiVersion": "example.com/v2", "kind": "Widget", "metadata": {"name": "v2"}, "spec": {"anything": True}},
    ])
    assert _mine() == []


@pytest.mark.parametrize("schema", [
    ["not", "a", "mapping"],
    {"$ref": "#/definitions/x", "definitions": {"x": {"type": "string"}}},
    {"type": "object", "properties": {"spec": {"type": "object", "properties": {"p": {"type": "string", "pattern": "(?P<"}}}}},
    {"type": "object", "properties": {"spec": {"allOf": "nope", "items": [1], "required": "x", "enum": 3}}},
])
def test_odd_schemas_never_traceback(copy_fixture, schema):
    _bundle(copy_fixture, _crd_v1(schema), [_ex({"p": "x"})])
    for f in _mine():
        assert f.severity in ("warning", "info")


def test_a_huge_schema_is_bounded(copy_fixture):
    props = {f"f{i}": {"type": "object", "properties": {f"g{j}": {"type": "string"} for j in range(40)}} for i in range(2000)}
    _bundle(copy_fixture, _crd_v1(_with(props)), [_ex({"f1": {"g1": 3}})])
    got = _mine()
    assert len(got) == 1 and "spec.f1.g1 is an integer" in got[0].message


def test_yaml_crd_schema_is_read_from_the_file(copy_fixture):
    """The loader does not build CRD schema bodies into nodes; the rule reads the block."""
    import yaml

    crd = yaml.safe_dump(json.loads(_crd_v1(_with({"size": {"type": "integer"}}))), sort_keys=False)
    _bundle(copy_fixture, crd, [_ex({"size": "3", "sise": 1})])
    got = sorted(_mine(), key=lambda f: f.severity, reverse=True)
    assert [f.severity for f in got] == ["warning", "info"]
    assert "spec.size is a string" in got[0].message and "spec.sise is not in the schema" in got[1].message


def test_configuration_raises_it_where_examples_must_create_as_shipped(copy_fixture):
    """A warning by default (nothing refuses the bundle for its example); a catalog that wants
    examples to create as shipped raises it in .olm-check.yaml."""
    from helpers import run_cli

    root = copy_fixture("rules/alm-examples-schema/bad")
    p = run_cli("check", ".", "--format", "json")
    assert p.returncode == 0, p.stderr
    with open(os.path.join(root, ".olm-check.yaml"), "w") as fh:
        fh.write("rules:\n  alm-examples-schema: error\n")
    p = run_cli("check", ".", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert {f["severity"] for f in json.loads(p.stdout)["findings"] if f["rule"] == "alm-examples-schema"} == {"error"}


# --- how the schema text becomes data: rapidyaml where it reads it as PyYAML does -----------

_CEL_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            description: |-
              The widget.
              **Note**: sizes over 10 need a licence.
            type: object
            properties:
              size:
                type: integer
                maximum: 10
              mode:
                type: string
                enum:
                - fast
                - slow
            x-kubernetes-validations:
            - message: mode is required with a size
              rule: |-
                !has(self.size) ||
                has(self.mode)
"""


def test_schema_whose_text_looks_like_it_holds_tags_is_validated(copy_fixture):
    """CEL rules ('!has(...)') and Markdown ('**Note**') in a CRD read like YAML tags or aliases
    to a text scan; the schema is still validated, with the same findings."""
    _bundle(copy_fixture, _CEL_CRD, [_ex({"size": 12, "mode": "quick", "colour": "red"})])
    got = sorted((f.severity, f.message) for f in _mine())
    assert [s for s, _ in got] == ["info", "warning", "warning"], got
    assert "spec.colour is not in the schema" in got[0][1]
    assert any("spec.mode is \"quick\"" in m for _, m in got), got
    assert any("spec.size is 12" in m and "at most 10" in m for _, m in got), got


def test_a_crd_no_example_names_is_not_read(copy_fixture):
    """Only the schema of the CRD version an example names is read and compiled."""
    from checker.rules.lib import crd_schema as rule

    _bundle(copy_fixture, _CEL_CRD, [_ex({"size": 3, "mode": "fast"})])
    gadget = _CEL_CRD.replace("widgets.example.com", "gadgets.example.com").replace("Widget", "Gadget") \
        .replace("widget", "gadget").replace("size:", "weight:")
    with open("manifests/example.com_gadgets.yaml", "w") as fh:
        fh.write(gadget)
    rule._CACHE.clear()
    rule._BY_NODE.clear()
    assert _mine() == []
    parsed = [v[0] for v in rule._CACHE.values() if v is not None]
    assert len(parsed) == 1, parsed
    assert "size" in parsed[0]["properties"]["spec"]["properties"]


_TOKENS = ["yes", "No", "on", "OFF", "True", "true", "false", "~", "null", "Null", "=", "<<", "0", "-0", "+1", "12", "012",
           "0x1f", "0o17", "0b101", "1_000", "1.5", ".5", "-.5", "1.", "1e3", "1.0e+3", "9e999", "1:20", "1:20.5", "inf", "-Infinity",
           ".inf", "nan", ".NaN", "2001-01-01", "2001-12-14 21:59:43.10 -5", "3m", "1.5Gi", "10s", "v1", "a:", ":a", ":", "\x01"]
_PLACES = ["k: {t}\n", "{t}: v\n", "k: [{t}]\n", "- {t}\n", "k:\n  {t}\n", "k: {{b: {t}}}\n", "k: [x, {t}]\n", "k: {t} # c\n",
           "- k: {t}\n", "k: {{{t}: x}}\n", "- - {t}\n", "k: [\n  {t}\n  ]\n", "k: {{\"b\":{t}}}\n", "k: [b, [c, {t}]]\n",
           "? [{t}]\n: v\n", "[{t}]: v\n", "k: \"{t}\"\nj: {t}\n", "k: '{t}'\n"]


def _pyyaml_data(text: str):
    """What PyYAML's safe loader (YAML 1.1, as the API server's YAML decoder) makes of a text:
    the reference; None when it refuses it (the schema is not checked)."""
    import yaml

    try:
        return yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return None
    except ValueError:  # a timestamp with a date or time that does not exist
        return None


def _rule_data(text: str) -> tuple:
    """(how the rule reads a YAML schema text, its data read through): "lazy" (rapidyaml's
    tree through the lazy view), "late" (the view falls back to PyYAML when it reaches a
    value), "pyyaml" (the view refuses the text up front)."""
    from checker.rules.lib import crd_schema as rule

    try:
        view = rule._lazy_schema(text)
    except rule._Fallback:
        return "pyyaml", rule._parse_schema(("yaml", text))
    try:
        return "lazy", rule._full(view)
    except rule._Fallback:
        return "late", rule._pyyaml(text)


def _same(a, b, path="") -> str:
    """'' when a and b are the same data, type for type and in key order (1, 1.0 and True
    differ; a str and a datetime differ); else where they are not."""
    import math

    if type(a) is not type(b):
        return f"{path}: {a!r} ({type(a).__name__}) vs {b!r} ({type(b).__name__})"
    if isinstance(a, dict):
        if [(type(k), k) for k in a] != [(type(k), k) for k in b]:
            return f"{path}: keys {list(a)!r} vs {list(b)!r}"
        return next((d for d in (_same(a[k], b[k], f"{path}.{k}") for k in a) if d), "")
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {a!r} vs {b!r}"
        return next((d for d in (_same(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b))) if d), "")
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return ""
    return "" if a == b else f"{path}: {a!r} vs {b!r}"


_YAML11 = os.path.join(FIXTURES, "rules", "alm-examples-schema", "yaml-1.1")


@pytest.mark.parametrize("name", sorted(os.listdir(_YAML11)))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_schema_fixture_reads_as_pyyaml_reads_it(name, newline):
    """Each fixture schema (tricky scalars, keys, repeated keys; anchors, merge keys, tags,
    timestamps, texts PyYAML refuses) gives the rule PyYAML's data exactly, and is read the way
    its name says: lazy-* by the lazy view, late-* by PyYAML once the view reaches a value it
    cannot make, pyyaml-* by PyYAML up front."""
    from checker import fastyaml

    if not fastyaml.ENABLED:
        pytest.skip("rapidyaml is not installed")
    with open(os.path.join(_YAML11, name), encoding="utf-8") as fh:
        text = fh.read().replace("\n", newline)
    want = _pyyaml_data(text)
    how, got = _rule_data(text)
    assert _same(got, want) == "", (name, how)
    assert how == name.split("-")[0], (name, how)


def test_lazy_view_reads_only_what_is_asked_for():
    """A mapping's collections stay unread until asked for; a repeated key's last value wins."""
    from checker.rules.lib import crd_schema as rule

    with open(os.path.join(_YAML11, "lazy-duplicates.yaml"), encoding="utf-8") as fh:
        view = rule._lazy_schema(fh.read())
    props = dict.__getitem__(view, "properties")
    assert isinstance(props, rule._Node)  # not read yet
    assert view["properties"]["a"] == {"type": "boolean"}
    assert isinstance(dict.__getitem__(view, "properties"), rule._LazyMap)  # read once, kept
    assert list(view["properties"]) == ["a", "b", "c", "d", 1, "required"]
    assert view["properties"][True] == "float one, the same key again"


@pytest.mark.parametrize("token", _TOKENS)
def test_schema_data_is_what_pyyaml_reads(token):
    """Every token, in every place, with and without text that looks like a tag (a CEL rule),
    is read as PyYAML reads it."""
    for cel in (True, False):
        for place in _PLACES:
            text = "  " + place.format(t=token).replace("\n", "\n  ")
            if cel:
                text = "  x-kubernetes-validations:\n  - rule: |-\n      !has(self.a)\n" + text
            want = _pyyaml_data(text)  # (None where libyaml refuses the text: the schema is not checked)
            how, got = _rule_data(text)
            assert _same(got, want) == "", (text, how)


def test_common_schema_text_takes_the_lazy_view():
    """The common case (a CEL rule that looks like a tag, YAML 1.1 scalars) is read by the lazy
    view, not PyYAML; a real tag, an anchor or a non-existent date sends it to PyYAML."""
    from checker import fastyaml
    from checker.rules.lib import crd_schema as rule

    if not fastyaml.ENABLED:
        pytest.skip("rapidyaml is not installed")
    text = _CEL_CRD[_CEL_CRD.index("        type: object"):]
    assert fastyaml._node_props(text)
    assert _rule_data(text)[0] == "lazy"
    how, got = _rule_data(text.replace("- fast", "- yes"))
    assert how == "lazy" and got["properties"]["spec"]["properties"]["mode"]["enum"] == [True, "slow"]
    for odd in ("rule: !!str |-", "rule: &a |-"):
        with pytest.raises(rule._Fallback):
            rule._lazy_schema(text.replace("rule: |-", odd))
    with pytest.raises(rule._Fallback):
        rule._lazy_schema(text.replace("- slow", "- 2024-02-30"))
    assert _rule_data(text.replace("- slow", "- 2024-02-28T10:00:00Z"))[0] == "late"


def test_example_against_yaml_1_1_scalars_in_the_schema(copy_fixture):
    """An enum written with YAML 1.1 plain scalars (yes, 0x1f, ~) holds what PyYAML reads, as the
    API server does: the example's "yes" string is not the enum's boolean; a reached timestamp
    sends the schema to PyYAML, with the same verdicts."""
    crd = _CEL_CRD.replace("                type: string\n                enum:\n                - fast\n                - slow\n",
                           "                enum:\n                - yes\n                - 0x1f\n                - ~\n")
    stamp = "2001-01-01T00:00:00Z"
    _bundle(copy_fixture, crd, [_ex({"mode": "yes"}, "a"), _ex({"mode": True}, "b"), _ex({"mode": 31}, "c"),
                                _ex({"mode": stamp}, "d")])
    want = ['spec.mode is "yes", not one of the values the schema allows',
            f'spec.mode is "{stamp}", not one of the values the schema allows']
    for how, text in (("lazy", crd), ("late", crd.replace("- ~", f"- {stamp}")),
                      ("pyyaml", crd.replace("- ~", f"- {stamp}\n              other: &a {{}}"))):
        assert _rule_data(text[text.index("        type: object"):])[0] == how
        with open(CRD, "w") as fh:
            fh.write(text)
        got = [f.message for f in _mine()]
        assert got == want, (how, got)


# -- nothing can stall it: patterns in RE2, a time budget --------------------------------------


def test_a_catastrophic_pattern_finishes_in_linear_time(copy_fixture):
    """'^(a+)+$' against 60 'a's and a '!': Python's backtracking re would take years (28 'a's
    took 14.5 s, each more doubles it); RE2, what the API server runs, answers at once."""
    import time

    schema = _with({"name": {"type": "string", "pattern": "^(a+)+$"}})
    _bundle(copy_fixture, _crd_v1(schema), [_ex({"name": "a" * 60 + "!"}), _ex({"name": "a" * 60}, name="ok")])
    t = time.monotonic()
    got = _mine()
    assert time.monotonic() - t < 2.0
    assert len(got) == 1 and "does not match the schema's pattern" in got[0].message, [f.message for f in got]


@pytest.mark.parametrize("pattern,value,refused", [
    ("^[a-z]+\\z", "abc", False),        # Go's \z: RE2 reads it
    ("^\\d+$", "١٢", True),              # \d is ASCII in Go and RE2 (Python's re: any Unicode digit)
    ("(?=a)a", "b", False),              # a lookahead: RE2 and Go refuse the pattern, so it is not checked
    ("(a)\\1", "ab", False),             # a backreference: the same
    ("^a{2,1001}$", "a", False),         # a repetition over 1000: the same
])
def test_patterns_read_as_go_reads_them(copy_fixture, pattern, value, refused):
    from checker.rules.lib.crd_schema import go_pattern

    assert (go_pattern(pattern) is None) == (pattern in ("(?=a)a", "(a)\\1", "^a{2,1001}$"))
    _bundle(copy_fixture, _crd_v1(_with({"name": {"type": "string", "pattern": pattern}})), [_ex({"name": value})])
    got = _mine()
    assert bool(got) == refused, [f.message for f in got]


def test_the_time_budget_gives_an_info_finding(copy_fixture, monkeypatch):
    """Past the bundle's time budget (here 0 s, so at the first example) the rest is not
    checked, and one info finding says how many examples were left."""
    from checker.rules.csv import alm_examples_schema as m

    monkeypatch.setattr(m, "TIME_BUDGET", 0.0)
    _bundle(copy_fixture, _crd_v1(_with({"size": {"type": "integer"}})), [_ex({"size": "3"}), _ex({"size": 1}, name="b")])
    got = _mine()
    assert [(f.severity, f.message) for f in got] == [
        ("info", "alm-examples schema validation stopped after 0 s: 2 of 2 examples not checked")]
    assert got[0].line > 1 and got[0].detail


def test_posix_classes_as_go_reads_them(copy_fixture):
    """'[[:alnum:]]+' is a POSIX class in Go and RE2; Python's re read it as the set '[:alnum'
    followed by ']', and so 'sdi' failed (26 wrong findings on community-operators-prod)."""
    _bundle(copy_fixture, _crd_v1(_with({"ns": {"type": "string", "pattern": "[[:alnum:]]+(-[[:alnum:]]+)*"}})),
            [_ex({"ns": "sdi"}), _ex({"ns": "---"}, name="b")])
    assert [f.message for f in _mine()] == ["spec.ns is \"---\", which does not match the schema's pattern"]


def test_the_fast_match_agrees_with_re2_search():
    from checker.rules.lib.crd_schema import _matches, go_pattern

    for pat, texts in [("^[a-z]+$", ["abc", "aBc", "", "é"]), ("é+", ["xéé", "e", "ééé"]), ("^$", ["", "a"]),
                       ("[[:alnum:]]+(-[[:alnum:]]+)*", ["sdi", "---", "a-b"]), ("^(a+)+$", ["a" * 60 + "!", "aaa"])]:
        rx = go_pattern(pat)
        for t in texts:
            assert _matches(rx, t) == (rx.search(t) is not None), (pat, t)
