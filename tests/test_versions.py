"""The version engine: the com.redhat.openshift.versions grammar (every real-world form),
maxOpenShiftVersion and minKubeVersion parsing, and the releases a bundle targets."""
import pytest

from checker.versions import OcpTable, label_releases, parse_label, parse_max, parse_min_kube
from checker.yamlload import parse

TABLE = OcpTable.load()


def label_from_yaml(text):
    """The label as it reaches the checker: through YAML (quotes, comments, numbers)."""
    docs, problems = parse("annotations:\n  com.redhat.openshift.versions: " + text + "\n")
    assert not problems
    node = docs[0].get("annotations").get("com.redhat.openshift.versions")
    return parse_label(node.value, node.raw if node.style is None else None)


# (as written in annotations.yaml, verdict, first release, last release or None for open, canonical)
GRAMMAR = [
    ("v4.12", "ok", "4.12", None, "v4.12"),
    ('"v4.12"', "ok", "4.12", None, "v4.12"),
    ("'v4.12'", "ok", "4.12", None, "v4.12"),
    ('"v4.12" # supported from 4.12', "ok", "4.12", None, "v4.12"),
    ("v4.12 # trailing comment", "ok", "4.12", None, "v4.12"),
    ("=v4.10", "ok", "4.10", "4.10", "=v4.10"),
    ('"=v4.10"', "ok", "4.10", "4.10", "=v4.10"),
    ("v4.6-v4.8", "ok", "4.6", "4.8", "v4.6-v4.8"),
    ('"v4.14-v4.17"', "ok", "4.14", "4.17", "v4.14-v4.17"),
    ('"v4.5,v4.6"', "style", "4.5", None, "v4.5"),
    ('"v4.6,v4.5"', "style", "4.5", None, "v4.5"),
    ('"4.12"', "style", "4.12", None, "v4.12"),
    ("4.14-4.17", "style", "4.14", "4.17", "v4.14-v4.17"),
    ("v3.6-v4.8", "style", "4.1", "4.8", "v3.6-v4.8"),
    ("v4.0-v4.8", "ok", "4.1", "4.8", "v4.0-v4.8"),
    ("4.10", "error", None, None, None),          # YAML float 4.1
    ("4.12", "error", None, None, None),          # YAML float
    ("=v4.6-v4.8", "error", None, None, None),
    ("v4.11-", "error", None, None, None),
    ("V4.6", "error", None, None, None),
    ("vfoo", "error", None, None, None),
    ('"v4.6 - v4.8"', "error", None, None, None),
    ('"v4.8-v4.6"', "error", None, None, None),
    ('""', "error", None, None, None),
    ("", "error", None, None, None),              # null
    ('"v4.7,v4.8"', "error", None, None, None),
    ('"v4.6,v4.7,v4.8"', "error", None, None, None),
    ("[v4.12]", "error", None, None, None),
]


@pytest.mark.parametrize("text,verdict,first,last,canonical", GRAMMAR)
def test_label_grammar(text, verdict, first, last, canonical):
    if text.startswith("["):
        lr = parse_label(["v4.12"])
    else:
        lr = label_from_yaml(text)
    if verdict == "error":
        assert not lr.ok and lr.error
        assert label_releases(lr, TABLE) == []
        return
    assert lr.ok, lr.error
    assert bool(lr.style) == (verdict == "style"), lr.style
    assert lr.canonical == canonical
    rels = [r.ocp for r in label_releases(lr, TABLE)]
    assert rels[0] == first
    if last is None:
        assert rels[-1] == TABLE.newest.ocp
    else:
        assert rels[-1] == last


def test_unquoted_number_message_shows_the_quoted_form():
    lr = label_from_yaml("4.10")
    # the message says what YAML read; the detail gives the quoted form to write
    assert "number 4.1 (not 4.10)" in lr.error.message and '"v4.10"' in lr.error.detail


@pytest.mark.parametrize("value,raw,version,error,warning", [
    ("4.8", None, (4, 8), False, False),
    ("4.20", None, (4, 20), False, False),
    ("4.8.0", None, (4, 8), False, True),
    ("4.8.0+build", None, (4, 8), False, True),
    ("v4.8", None, (4, 8), False, True),
    ('"4.8"', None, None, True, False),      # quotes inside the string: OLM trims only the JSON's own quotes (\"4.8\ fails)
    ("4.8+build", None, None, True, False),  # blang ParseTolerant refuses build metadata on a short version
    ("4.8.0-rc.1", None, None, True, False),
    (" 4.8 ", None, (4, 8), False, False),   # ParseTolerant trims spaces
    ("4.8.1", None, None, True, False),
    ("", None, None, True, False),
    ("four", None, None, True, False),
    (4.2, "4.20", None, True, False),        # unquoted YAML float
    (4.8, None, None, True, False),          # JSON number
    (True, None, None, True, False),
    (None, None, None, True, False),
])
def test_max_openshift_version(value, raw, version, error, warning):
    v, err, warn = parse_max(value, raw)
    assert v == version
    assert bool(err) == error
    assert bool(warn) == warning
    if raw == "4.20":  # both readings, and the author chooses: never only the float's
        assert "4.20 as written; YAML reads 4.2" in err.message
        assert 'Quote the version you mean: "4.20" (as written) or "4.2"' in err.detail


def test_max_json_number_keeps_its_written_text():
    from checker.versions import loads_keeping_numbers

    [p] = loads_keeping_numbers('[{"type": "olm.maxOpenShiftVersion", "value": 4.10}]')
    v, err, _ = parse_max(p["value"], p["value"].raw, json_text=True)
    assert v is None and "4.10 as written; JSON and YAML tools read 4.1" in err.message
    assert "Today's OLM reads the property's raw JSON text, 4.10" in err.detail


@pytest.mark.parametrize("value,ok", [
    ("1.21.0", True), ("v1.21.0", True), ("1.25.3", True), ("1.21.0-rc.1", True),
    ("1.021.0", True),  # coreos/go-semver (strconv.ParseInt) accepts leading zeros
    ("1.21", False), ("v1.21", False), ("1", False), ("1.21.x", False), (" 1.21.0", False), (1.21, False),
])
def test_min_kube_version(value, ok):
    kube, err = parse_min_kube(value)
    assert (err is None) == ok
    if ok:
        assert kube == (1, int(str(value).lstrip("v").split(".")[1]))


def test_empty_min_kube_version_is_no_requirement():
    # OLM's minKubeVersionStatus: `if minKubeVersion == "" { return true, nil }`
    assert parse_min_kube("") == (None, None)


def test_table_is_ordered_and_extendable():
    t = OcpTable.load([{"ocp": "5.1", "kube": "1.37", "ga": False}])
    assert t.newest.ocp == "5.1" and not t.newest.ga
    assert t.get("4.12").kube == "1.25"
    assert [r.key for r in t.releases] == sorted(r.key for r in t.releases)
    assert t.newest_ga.ocp == TABLE.newest_ga.ocp


def test_5_0_is_the_release_after_4_22_and_4_23_is_its_other_name():
    # OLM's normalizeOCPVersion (operator-lifecycle-manager helpers.go): 4.23 and 5.0 are one release
    from checker.versions import label_releases, norm, release_ranges, vkey

    assert TABLE.get("4.23") is TABLE.get("5.0") is TABLE.get((4, 23)) and TABLE.get("5.0").ocp == "5.0"
    assert vkey("4.23") == (5, 0) and norm((4, 22)) == (4, 22)
    nxt = [r.ocp for r in TABLE.releases if r.key > (4, 22)]
    assert nxt[0] == "5.0" and "4.23" not in [r.ocp for r in TABLE.releases]
    assert release_ranges(["4.21", "4.22", "5.0"]) == "4.21-5.0"
    assert release_ranges(["4.21", "4.22", "5.0"], ["5.0"]) == "4.21-4.22, 5.0 (not GA)"
    for label, want in (("v4.20-v4.23", ["4.20", "4.21", "4.22", "5.0"]), ("v4.20-v5.0", ["4.20", "4.21", "4.22", "5.0"]),
                        ("v5.0", ["5.0"]), ("=v4.23", ["5.0"]), ("v4.22", ["4.22", "5.0"])):
        lr = parse_label(label)
        assert lr.ok and [r.ocp for r in label_releases(lr, TABLE)] == want, label
    assert parse_label("v5.0-v4.23").ok  # the same release at both ends
    assert parse_label("4.20-4.23").canonical == "v4.20-v4.23"  # the fix keeps the numbers as written
    # a user's entry for 4.23 corrects 5.0
    t = OcpTable.load([{"ocp": "4.23", "kube": "1.36", "ga": True}])
    assert t.get("5.0").ga and "4.23" not in [r.ocp for r in t.releases]


def test_label_unknown_names_releases_that_do_not_exist():
    from checker.versions import label_unknown

    assert label_unknown(parse_label("v4.22-v4.24"), TABLE) == ["4.24"]  # the release after 4.22 is 5.0
    assert label_unknown(parse_label("v5.3"), TABLE) == ["5.3"]
    assert label_unknown(parse_label("v4.0-v4.8"), TABLE) == []  # below the first release: nothing more is named
    assert label_unknown(parse_label("v4.20-v4.23"), TABLE) == []
