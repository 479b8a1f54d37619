"""alm-examples-schema: examples validated against the CRD version's schema as the API server
validates a created object (bundles written to disk, checked through the public API)."""
import json
import os

import pytest

from checker.api import check

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
    from checker.rules import alm_examples_schema as rule

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


@pytest.mark.parametrize("token", _TOKENS)
def test_schema_data_is_what_pyyaml_reads(token):
    """A schema whose text may hold a tag (here a CEL rule) is read as PyYAML (YAML 1.1, as the
    API server's YAML decoder) reads it, whether rapidyaml or PyYAML does the reading."""
    import yaml

    from checker.rules.alm_examples_schema import _parse_schema, _ryml_json

    for place in _PLACES:
        text = "  x-kubernetes-validations:\n  - rule: |-\n      !has(self.a)\n  " + place.format(t=token).replace("\n  ", "\n    ")
        try:
            want = yaml.load(text, Loader=yaml.CSafeLoader)
        except yaml.constructor.ConstructorError:
            want = None  # the schema is not checked
        except yaml.YAMLError:
            continue  # libyaml refuses it: the loader reports the file (yaml-syntax), the rule never reads it
        assert repr(_parse_schema(("yaml", text))) == repr(want), (text, _ryml_json(text))


def test_schema_with_a_tag_like_cel_rule_skips_pyyaml():
    """The common case (no value rapidyaml reads otherwise) takes rapidyaml, not PyYAML."""
    from checker import fastyaml
    from checker.rules.alm_examples_schema import _ryml_json

    if not fastyaml.ENABLED:
        pytest.skip("rapidyaml is not installed")
    text = _CEL_CRD[_CEL_CRD.index("        type: object"):]
    assert fastyaml._node_props(text)
    assert _ryml_json(text) is not None
    assert _ryml_json(text.replace("- fast", "- yes")) is None  # YAML 1.1's boolean: PyYAML decides
    assert _ryml_json(text.replace("rule: |-", "rule: !!str |-")) is None  # a real tag
