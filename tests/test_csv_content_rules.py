"""CSV metadata and annotation rules (checker/rules/csv/: the ids of the former csv_metadata.py and csv_annotations.py):
positions inside JSON held in YAML strings, one-line fixes, "a missing field is reported
once", the peer bugs the issue names (80-character displayName, invalid e-mail), and
bad input that must never raise.

Each test checks the reference good bundle with one edit, on disk, as a user would."""
import os

import pytest

from checker.api import check
from checker.rules import PROFILES
from checker.upstream.go_parsers import go_mail_address_error, go_request_uri_error
from checker.rules.csv.csv_metadata_format import email_problem, url_problem

from conftest import GOOD_CSV as CSV
from helpers import message_length


@pytest.fixture
def bundle(edit_good_csv):
    """The good bundle in a fresh directory; returns edit((old, new), ..., profile) -> result."""
    return edit_good_csv


def _of(res, rule):
    return [f for f in res.findings if f.rule == rule]


ALM = '      [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "example"}, "spec": {"size": 1}}]\n'


@pytest.mark.parametrize("written,line,column", [
    # block literal: node line + JSON line, indentation + JSON column
    ('    alm-examples: |\n      [\n        {"apiVersion": "example.com/v1",\n         "kind": "Widget" "x": 1}\n      ]\n', 10, 27),
    # single-quoted over two lines (folded into one JSON line)
    ("    alm-examples: '[{\"apiVersion\": \"example.com/v1\",\n      \"kind\": \"Widget\" \"x\": 1}]'\n", 8, 24),
    # double-quoted with escapes on one line
    ('    alm-examples: "[{\\"apiVersion\\": \\"example.com/v1\\", \\"kind\\": \\"Widget\\" \\"x\\": 1}]"\n', 7, 79),
    # folded block
    ('    alm-examples: >-\n      [{"apiVersion": "example.com/v1",\n      "kind": "Widget" "x": 1}]\n', 9, 24),
])
def test_alm_examples_json_error_points_into_the_json(bundle, written, line, column):
    res = bundle(("    alm-examples: |-\n" + ALM, written))
    errs = [f for f in _of(res, "alm-examples") if f.severity == "error"]
    assert [(f.line, f.column) for f in errs] == [(line, column)], [(f.line, f.column, f.message) for f in errs]
    assert "Expecting ','" in errs[0].message


@pytest.mark.parametrize("value", ['""', "''", "|-\n", "'[]'"])
def test_empty_alm_examples_means_no_examples(bundle, value):
    res = bundle(("    alm-examples: |-\n" + ALM, f"    alm-examples: {value}\n" if not value.startswith("|") else "    alm-examples: |-\n"))
    found = _of(res, "alm-examples")
    assert [(f.severity, "has no example" in f.message) for f in found] == [("warning", True)]


def test_feature_annotation_boolean_gets_a_quoting_fix(bundle):
    res = bundle(('disconnected: "true"\n', "disconnected: true  # we mirror\n"))
    (f,) = _of(res, "feature-annotations")
    assert f.fix is not None and f.fix.line == 17
    assert f.fix.replacement == '    features.operators.openshift.io/disconnected: "true"  # we mirror'


def test_unquoted_feature_annotation_is_one_finding_not_two(bundle):
    """An unquoted `true` breaks two rules' conditions (annotations are strings; a feature
    annotation is "true" or "false"): reported once, by the rule with the right fix -- and
    by manifest-invalid where that rule is off (the minimal profile)."""
    res = bundle(('disconnected: "true"\n', "disconnected: true\n"))
    at = [(f.rule, f.line) for f in res.findings if f.line == 17]
    assert at == [("feature-annotations", 17)]
    res = check(["."], profile="minimal")
    assert [(f.rule, f.line) for f in res.findings if f.line == 17] == [("manifest-invalid", 17)]


def test_skiprange_case_fix_renames_the_key(bundle):
    res = bundle(("    capabilities: Basic Install\n", "    capabilities: Basic Install\n    OLM.SkipRange: '>=0.9.0 <1.0.0'\n"))
    (f,) = _of(res, "olm-annotation-case")
    assert (f.line, f.column) == (10, 5)
    assert f.fix.replacement == "    olm.skipRange: '>=0.9.0 <1.0.0'"


@pytest.mark.parametrize("old,new,rule,replacement", [
    ("  version: 1.0.0\n", "  version: v1.0.0\n", "csv-version", "  version: 1.0.0"),
    ("    capabilities: Basic Install\n", "    capabilities: 'seamless upgrades'\n", "csv-capabilities", "    capabilities: Seamless Upgrades"),
    ("    categories: Developer Tools\n", "    categories: developer tools, Logging and Tracing\n", "csv-categories",
     "    categories: Developer Tools, Logging & Tracing"),
    ("      mediatype: image/svg+xml\n", "      mediatype: image/svg\n", "csv-metadata-format", "      mediatype: image/svg+xml"),
])
def test_one_line_fixes(bundle, old, new, rule, replacement):
    res = bundle((old, new))
    fixes = [f.fix.replacement for f in _of(res, rule) if f.fix]
    assert fixes == [replacement]


def test_eighty_character_display_name_is_info(bundle):
    """The catalog CI's `.{3,50}` is matched with re.match (a prefix): it accepts longer names,
    and the community documentation asks only for "a short, readable name": nothing documents
    or enforces 50, so the length is said as info, not a warning (warn-audit)."""
    name = "X" * 80
    res = bundle(("  displayName: Example Operator\n", f"  displayName: {name}\n"))
    (f,) = _of(res, "csv-metadata-format")
    assert f.severity == "info" and (f.line, f.column) == (25, 16) and "80 characters" in f.message
    assert "prefix" in f.detail and "documents" not in f.detail
    assert res.exit_code == 0


def test_two_character_display_name_is_an_error(bundle):
    res = bundle(("  displayName: Example Operator\n", "  displayName: XY\n"))
    (f,) = _of(res, "csv-metadata-format")
    assert (f.severity, f.line, f.column) == ("error", 25, 16) and "shorter than 3" in f.message


@pytest.mark.parametrize("email,severity", [
    # what Go's mail.ParseAddress (operator-sdk's operatorhub validator) refuses: errors
    ("maintainers at example.com", "error"), ("@example.com", "error"), ("a@@example.com", "error"),
    ("a@example..com", "error"), ("a..b@example.com", "error"), ("maintainers(at)example.com", "error"),
    ("a@example.com, b@example.com", "error"), ("Team <a@example.com", "error"),
    # what Go accepts but is unusual: warnings
    ("maintainers@example", "warning"), ("Example <a@example.com>", "warning"), (" a@example.com", "warning"),
    ("a@-example.com", "warning"), ("a@example.c", "warning"), ("a@example.com'", "warning"),
])
def test_emails_are_judged_as_go_parses_them(bundle, email, severity):
    quoted = "'" + email.replace("'", "''") + "'"
    res = bundle(("      email: maintainers@example.com\n", f"      email: {quoted}\n"))
    (f,) = _of(res, "csv-metadata-format")
    assert (f.severity, f.line, f.column) == (severity, 36, 14) and "email" in f.message


@pytest.mark.parametrize("email", ["a@example.com", "first.last+tag@sub.example.co.uk", "o'brien@example.org", "x_y-z@ex-ample.io"])
def test_valid_emails_pass(email):
    assert email_problem(email) is None
    assert go_mail_address_error(email) is None


@pytest.mark.parametrize("url,ok", [
    ("https://example.com", True), ("http://localhost:8080/x?y=1#z", True), ("https://[::1]/docs", True),
    ("example.com", False), ("https://", False), ("ftp://example.com", False), ("https://exa mple.com", False),
    ("mailto:team@example.com", False), ("https://example.com:notaport/", False), ("/docs", False),
])
def test_urls(url, ok):
    assert (url_problem(url) is None) == ok, url_problem(url)


@pytest.mark.parametrize("url,go_error", [
    # Go's url.ParseRequestURI, as operator-sdk's link check calls it
    ("https://example.com/docs", None), ("https://aws.amazon.com/S3 Control/developer-resources/", None),
    ("mailto:team@example.com", None), ("/docs", None), ("https://", None), ("ftp://example.com", None),
    ("example.com/docs", "invalid URI for request"), ("https://exa mple.com", 'invalid character " " in host name'),
    ("https://example.com:notaport/", 'invalid port ":notaport" after host'), ("https://example.com/\x07", "net/url: invalid control character in URL"),
    ("https://example.com/%zz", 'invalid URL escape "%zz"'), (":x", "missing protocol scheme"), ("", "empty url"),
])
def test_link_urls_are_parsed_as_go_parses_them(url, go_error):
    assert go_request_uri_error(url) == go_error


@pytest.mark.parametrize("url,severity,fix", [
    ("https://example.com/My Docs/", "warning", "      url: https://example.com/My%20Docs/"),
    ("example.com/docs", "error", "      url: https://example.com/docs"),
    ("'https://example.com/\\x07'", None, None),
    ('"https://example.com/\\x07"', "error", None),
    ("mailto:team@example.com", "warning", None),
])
def test_link_url_severity_follows_gos_parser(bundle, url, severity, fix):
    res = bundle(("      url: https://example.com/docs\n", f"      url: {url}\n"))
    found = _of(res, "csv-metadata-format")
    if severity is None:  # a literal backslash-x07 in single quotes is four characters, not a control byte
        assert not found
        return
    (f,) = found
    assert (f.severity, f.line, f.column) == (severity, 39, 12)
    assert (f.fix.replacement if f.fix else None) == fix


def test_missing_field_is_reported_once(bundle):
    res = bundle(("  displayName: Example Operator\n", ""), ("  version: 1.0.0\n", "  version: ''\n"))
    req = _of(res, "csv-required-fields")
    # a key that is there but blank is "empty", one that is not there "missing"
    assert sorted(f.message for f in req) == ["spec.displayName is missing", "spec.version is empty"]
    assert not _of(res, "csv-metadata-format") and not _of(res, "csv-version")


def test_empty_install_modes_is_install_modes_only(bundle):
    res = bundle(("  installModes:\n    - type: OwnNamespace\n", "  installModes: []\n  oldModes:\n    - type: OwnNamespace\n"))
    assert [f.rule for f in res.findings if f.rule in ("install-modes", "csv-required-fields")] == ["install-modes"]


def test_icon_and_links_are_errors_in_community_only(bundle):
    res = bundle(("  links:\n    - name: Documentation\n      url: https://example.com/docs\n", ""))
    assert [(f.severity, f.message[:10]) for f in _of(res, "csv-required-fields")] == [("error", "spec.links")]
    assert not _of(check(["."], profile="certified"), "csv-required-fields")


HOSTILE = [
    ("\nspec:\n  displayName", "\nspec: text\nx:\n  displayName"),
    ("  annotations:\n", "  annotations: [a, b]\n  x:\n"),
    ("  maintainers:\n    - name: Example Maintainers\n      email: maintainers@example.com\n", "  maintainers: bob\n"),
    ("  icon:\n    - base64data:", "  icon:\n    base64data:"),
    ("  installModes:\n    - type: OwnNamespace\n      supported: true\n", "  installModes:\n    - OwnNamespace\n    - {type: 7, supported: yes}\n"),
    ("    alm-examples: |-\n" + ALM, "    alm-examples: [1, 2]\n"),
    ("    alm-examples: |-\n" + ALM, "    alm-examples: '[1, \"x\", {\"kind\": 3}, {\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}]'\n"),
    ("    alm-examples: |-\n" + ALM, "    alm-examples: '{\"apiVersion\": \"example.com/v1\", \"kind\": \"Widget\"}'\n"),
    ("    capabilities: Basic Install\n", "    capabilities: [Basic Install]\n    categories2: 5\n"),
    ("    categories: Developer Tools\n", "    categories: 42\n"),
    ("  version: 1.0.0\n", "  version: {major: 1}\n"),
    ("  provider:\n    name: Example Inc.\n", "  provider: [Example]\n"),
    ("  links:\n    - name: Documentation\n      url: https://example.com/docs\n", "  links:\n    - https://example.com\n    - {name: 3, url: [x]}\n"),
    ("  keywords:\n    - widgets\n", "  keywords: widgets, example\n  kw:\n    - widgets\n"),
    ("    support: Example Inc.\n", "    support: Example Inc.\n    operators.openshift.io/valid-subscription2: x\n"
     "    operatorframework.io/suggested-namespace-template: '[1]'\n    operatorframework.io/initialization-resource: '[1]'\n"
     "    operators.operatorframework.io/internal-objects: '{\"a\": 1}'\n    operatorframework.io/suggested-namespace: 7\n"),
    ("  relatedImages:\n", "  relatedImages: {}\n  x:\n"),
    ("  namespace: placeholder\n", "  namespace: placeholder\n  labels:\n    operatorframework.io/arch.: [x]\n    operatorframework.io/os.zos: ~\n"),
    ("  customresourcedefinitions:\n    owned:\n", "  customresourcedefinitions:\n    owned: text\n    x:\n"),
]


@pytest.mark.parametrize("old,new", HOSTILE)
def test_bad_shapes_never_raise(bundle, old, new):
    bundle((old, new))
    for p in PROFILES:
        res = check(["."], profile=p)
        assert not [f for f in res.findings if f.rule == "internal-error"], [f.message for f in res.findings]


def test_a_csv_that_is_not_a_mapping_is_left_to_manifest_invalid(copy_fixture):
    copy_fixture("bundles/good")
    with open(CSV, "w") as fh:
        fh.write("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: x\nspec: []\n")
    res = check(["."])
    assert not [f for f in res.findings if f.rule == "internal-error"]
    assert os.path.exists(CSV)


def test_documented_only_fields_can_be_made_optional(bundle):
    res = bundle(("  labels:\n    operated-by: example-operator\n", ""), ("    capabilities: Basic Install\n", ""))
    assert sorted(f.message.split(" is missing")[0] for f in _of(res, "csv-required-fields")) == [
        "spec.labels", "the capabilities annotation"]
    with open(".olm-check.yaml", "w") as fh:
        fh.write("options:\n  csv-required-fields:\n    optional: [spec.labels, capabilities]\n")
    assert not _of(check(["."]), "csv-required-fields")


def test_icon_type_mixups(bundle):
    """The catalog CI checks only that the mediatype is one of four; nothing compares it with
    the data. SVG data under a raster type or the reverse breaks the image (browsers do not
    guess SVG): a warning; raster data under another raster type shows (browsers sniff raster
    images): info (warn-audit)."""
    import base64

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
    svg = "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4="
    res = bundle((svg, png), ("mediatype: image/svg+xml", "mediatype: image/jpeg"))
    assert [(f.severity, f.fix.replacement.strip()) for f in _of(res, "csv-metadata-format")] == [("info", "mediatype: image/png")]
    assert "sniff raster" in _of(res, "csv-metadata-format")[0].detail
    res = bundle(("mediatype: image/jpeg", "mediatype: image/svg+xml"))
    assert [(f.severity, f.message, "do not guess SVG" in f.detail) for f in _of(res, "csv-metadata-format")] == [
        ("warning", "the icon data is PNG but the mediatype says image/svg+xml", True)]


def test_empty_keyword_is_a_warning_a_number_an_error(bundle):
    res = bundle(("    - widgets\n", "    - ''\n    - 5\n"))
    assert [(f.severity, f.line) for f in _of(res, "csv-metadata-format")] == [("warning", 41), ("error", 42)]


def test_max_openshift_version_in_olm_properties_is_not_flagged(bundle):
    prop = "    olm.properties: '[{\"type\": \"olm.maxOpenShiftVersion\", \"value\": \"4.23\"}]'\n"
    res = bundle(("    capabilities: Basic Install\n", "    capabilities: Basic Install\n" + prop))
    assert not _of(res, "olm-properties-annotation")


CSV_RULES = ("csv-name", "csv-name-convention", "csv-version", "csv-version-directory", "csv-required-fields",
             "csv-metadata-format", "csv-capabilities", "csv-categories", "install-modes", "alm-examples",
             "olm-annotation-case", "olm-properties-annotation", "feature-annotations", "feature-annotations-required",
             "disconnected-requirements", "arch-os-labels", "suggested-namespace", "internal-objects",
             "initialization-resource", "valid-subscription")


@pytest.mark.parametrize("rid", CSV_RULES)
def test_findings_are_one_short_sentence_with_the_why_and_fix_in_detail(rid, copy_fixture):
    """The finding contract on every bad fixture of these rules: the message is one sentence of
    at most 150 characters (a quoted value counted as at most 60: values are never cut), the detail says why and how
    to fix it, and neither repeats the other."""
    import re

    import yaml

    from conftest import FIXTURES

    cases = sorted(c for c in os.listdir(os.path.join(FIXTURES, "rules", rid)) if c.startswith("bad"))
    seen = 0
    for case in cases:
        copy_fixture(os.path.join("rules", rid, case), name=case)
        exp_path = os.path.join(FIXTURES, "rules", rid, case, "expect.yaml")
        exp = (yaml.safe_load(open(exp_path)) or {}) if os.path.exists(exp_path) else {}
        res = check([exp.get("check", ".")], profile=exp.get("profile"))
        for f in _of(res, rid):
            if f.message.startswith("operators.openshift.io/infrastructure-features "):
                continue  # the legacy list's own shape: checker/rules/version/infrastructure_features_deprecated.py, not these modules
            seen += 1
            assert message_length(f.message) <= 150 and "\n" not in f.message, f.message
            assert not f.message.endswith(".") and not re.search(r"[.!?] [A-Z]", f.message), f.message  # one sentence, no full stop
            assert f.detail and f.detail != f.message, (f.message, f.detail)
    assert seen, f"no bad fixture of {rid} reported it"


@pytest.mark.parametrize("items,severity", [
    # 'proxy' is not in the console's infrastructureFeatureMap (case-sensitive): nothing shows Proxy-aware
    ('["disconnected", "proxy"]', "warning"),
    # 'proxy-aware' in the same list already shows Proxy-aware: the unmapped item loses nothing (warn-audit)
    ('["disconnected", "proxy", "proxy-aware"]', "info"),
])
def test_legacy_infrastructure_list_letter_case(bundle, items, severity):
    res = bundle(("    capabilities: Basic Install\n",
                  f"    capabilities: Basic Install\n    operators.openshift.io/infrastructure-features: '{items}'\n"))
    (f,) = [f for f in _of(res, "feature-annotations") if "letter case" in f.message]
    assert f.severity == severity and f.line == 10 and "'proxy'" in f.message
    assert ("already shows" in f.detail) == (severity == "info")
