"""The one semver module (checker/upstream/blangsemver.py): each parser answers tricky inputs as the
upstream function it is named for does, and no other module parses versions its own way.

Upstream facts (read in the sources):
- blang/semver v4.0.0 ``Parse``: exactly three dot parts, ASCII digits, no leading zeros;
  ``ParseTolerant``: ``strings.TrimSpace``, one leading ``v`` dropped, leading zeros dropped,
  a short version padded with ``.0`` unless its last part holds ``+`` or ``-`` (then an
  error: "Short version cannot contain PreRelease/Build meta data").
- coreos/go-semver v0.3.1 ``NewVersion`` (OLM's minKubeVersion, after ``TrimPrefix "v"``):
  ``+`` then ``-`` split off, three parts through ``strconv.ParseInt`` (leading zeros fine),
  nothing trimmed; OLM skips an empty minKubeVersion.
- OLM helpers.go ``maxOpenShiftVersion``: the value's raw JSON, ``strings.Trim(v, "\"")``,
  empty refused, ``ParseTolerant``, then equal to its major.minor truncation (``EQ`` ignores
  build metadata).
"""
import ast
import pathlib

import pytest

from checker.upstream.blangsemver import (
    SemverError, Version, coreos_new_version, max_openshift_version, min_kube_version, npm_spec_contains, parse,
    parse_range, parse_tolerant, property_value_text,
)

ROOT = pathlib.Path(__file__).resolve().parent.parent
ERR = "error"


def result(fn, value):
    try:
        v = fn(value)
    except SemverError:
        return ERR
    if isinstance(v, Version):
        return str(v)
    if v is not None and hasattr(v, "major"):
        return f"{v.major}.{v.minor}.{v.patch}" + (f"-{v.pre}" if v.pre else "") + (f"+{v.metadata}" if v.metadata else "")
    return v


def max_ocp(value):
    return max_openshift_version(property_value_text(value))


#        input          blang Parse    blang ParseTolerant  coreos NewVersion  OLM maxOpenShiftVersion
TABLE = [
    ("4.8+build",     ERR,           ERR,                 ERR,               ERR),
    ("4.8.0+build",   "4.8.0+build", "4.8.0+build",       "4.8.0+build",     (4, 8)),
    ("v4.8",          ERR,           "4.8.0",             ERR,               (4, 8)),
    ("v4.8.0",        ERR,           "4.8.0",             ERR,               (4, 8)),
    (" 4.8 ",         ERR,           "4.8.0",             ERR,               (4, 8)),
    ("4.08",          ERR,           "4.8.0",             ERR,               (4, 8)),
    ("4.08.0",        ERR,           "4.8.0",             "4.8.0",           (4, 8)),
    ("4.8.0-rc.1",    "4.8.0-rc.1",  "4.8.0-rc.1",        "4.8.0-rc.1",      ERR),
    ("4.8-rc.1",      ERR,           ERR,                 ERR,               ERR),
    ("4.8.1",         "4.8.1",       "4.8.1",             "4.8.1",           ERR),
    ("01.2.3",        ERR,           "1.2.3",             "1.2.3",           ERR),
    ("4",             ERR,           "4.0.0",             ERR,               (4, 0)),
    ("1.2.3.4",       ERR,           ERR,                 ERR,               ERR),
    ("1.2.3-01",      ERR,           ERR,                 "1.2.3-01",        ERR),
    ("1.2.3+a..b",    ERR,           ERR,                 ERR,               ERR),
    ("1.2.3+",        ERR,           ERR,                 "1.2.3",           ERR),
    ("V4.8",          ERR,           ERR,                 ERR,               ERR),
    ("\u0664.8",      ERR,           ERR,                 ERR,               ERR),  # an Arabic-Indic digit: Go reads ASCII only
    ("4.8\x1c",       ERR,           ERR,                 ERR,               ERR),  # Python's strip() would trim it, Go's TrimSpace does not
    ("",              ERR,           ERR,                 ERR,               ERR),
    (4.8,             ERR,           ERR,                 ERR,               (4, 8)),  # OLM reads a JSON number's text
    (None,            ERR,           ERR,                 ERR,               ERR),
]


@pytest.mark.parametrize("value,strict,tolerant,coreos,olm_max", TABLE)
def test_each_parser_answers_as_upstream(value, strict, tolerant, coreos, olm_max):
    assert result(parse, value) == strict
    assert result(parse_tolerant, value) == tolerant
    assert result(coreos_new_version, value) == coreos
    assert result(max_ocp, value) == olm_max


def test_max_openshift_version_messages_are_olms():
    with pytest.raises(SemverError, match='value cannot be "" '):
        max_openshift_version('""')
    with pytest.raises(SemverError, match="must specify only <major>.<minor> version, got invalid value 4.8.1$"):
        max_openshift_version('"v4.8.1"')  # OLM prints the parsed version, not the text
    with pytest.raises(SemverError, match='failed to parse "4.8\\+build" as semver'):
        max_openshift_version('"4.8+build"')
    # quotes inside the string: OLM trims the JSON's quotes only and cannot parse \"4.8\
    with pytest.raises(SemverError):
        max_openshift_version(property_value_text('"4.8"'))


def test_min_kube_version_as_olm_reads_it():
    assert min_kube_version("") is None  # no requirement
    assert result(min_kube_version, "v1.21.0") == "1.21.0"
    assert result(min_kube_version, "1.21") == ERR
    assert result(min_kube_version, "vv1.21.0") == ERR  # TrimPrefix drops one v


def test_ranges_olm_and_the_catalog_ci_read_differently():
    r = parse_range(">=4.1.0 <4.3.0")
    assert r(parse("4.2.0")) and r(parse("4.2.0-rc.1"))  # blang: a pre-release is in the range
    assert npm_spec_contains("4.2.0", ">=4.1.0 <4.3.0")
    assert not npm_spec_contains("4.2.0-rc.1", ">=4.1.0 <4.3.0")  # npm: pre-releases left out
    assert not npm_spec_contains("4.2", ">=4.1.0 <4.3.0")  # not a version: no edge, no exception
    assert parse_range(">= 4.1.0 <4.3.0")(parse("4.1.0"))
    assert parse_range("4.1.x")(parse("4.1.7"))
    for bad in (">=4.1 <4.3", "^4.1.0", "", ">=v4.1.0"):
        with pytest.raises(SemverError):
            parse_range(bad)


# ---------------------------------------------------------------------------------------
# one module: nobody else parses versions


def _version_grammar(text: str) -> bool:
    """A regular expression for a semantic version (numbers, then pre-release/build parts),
    or the no-leading-zero number of the semver grammar."""
    return ("(0|[1-9]\\d*)" in text) or ("\\d+)" in text and "[0-9A-Za-z" in text)


def _findings(tree) -> list:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _version_grammar(node.value):
            out.append(f"a version regex {node.value!r}")
        elif isinstance(node, ast.Import):
            out += [f"import {a.name}" for a in node.names if a.name.split(".")[0] in ("semantic_version", "semver", "packaging")]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and \
                node.module.split(".")[0] in ("semantic_version", "semver", "packaging"):
            out.append(f"from {node.module} import")
    return out


def test_the_detector_finds_the_copies_that_were_removed():
    old = [
        'import re\n_SEMVER_TOLERANT = re.compile(r"v?(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?")\n',
        'import re\n_STRICT_SEMVER = re.compile(r"(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?")\n',
        'def f(v, r):\n    import semantic_version\n    return semantic_version.Version(v) in semantic_version.NpmSpec(r)\n',
        'from packaging.version import Version\n',
    ]
    for src in old:
        assert _findings(ast.parse(src)), src


def test_no_other_module_parses_semver_itself():
    found = {}
    for path in sorted((ROOT / "checker").rglob("*.py")):
        if path.name == "blangsemver.py":
            continue
        f = _findings(ast.parse(path.read_text(encoding="utf-8")))
        if f:
            found[str(path.relative_to(ROOT))] = f
    assert found == {}, f"parse versions with checker/upstream/blangsemver.py instead: {found}"


def test_the_modules_that_read_versions_use_the_one_module():
    for rel in ("checker/versions.py", "checker/upgradeable.py", "checker/rules/csv/csv_version.py",
                "checker/rules/csv/csv_name_convention.py",
                "checker/rules/catalog/skip_range.py", "checker/rules/catalog/fbc_schema.py",
                "checker/rules/plain/plain_bundle_metadata.py"):
        assert "blangsemver import" in (ROOT / rel).read_text(encoding="utf-8"), rel


def test_upgradeable_does_not_import_the_cli():
    # cli runs `upgradeable`; upgradeable takes Usage from checker/usage.py (no cycle)
    tree = ast.parse((ROOT / "checker/upgradeable.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            assert node.module != "cli"
    from checker import cli, usage

    assert cli.Usage is usage.Usage
