"""olm.skipRange / bundle versions parsed as OLM does (github.com/blang/semver v4)."""
import pytest

from checker.upstream.blangsemver import SemverError, check_range, parse, parse_range, parse_tolerant


def v(s):
    return parse(s)


@pytest.mark.parametrize("rng,inside,outside", [
    (">=1.0.0 <1.2.0", ["1.0.0", "1.1.9", "1.2.0-rc.1"], ["0.9.9", "1.2.0", "2.0.0"]),
    (">1.0.0 <=2.0.0 || >=3.0.0", ["1.0.1", "2.0.0", "3.0.0", "9.9.9"], ["1.0.0", "2.0.1", "2.9.9"]),
    ("<1.2.3-0", ["1.2.2", "0.0.1", "1.2.3-alpha" if False else "1.2.2-rc.1"], ["1.2.3", "1.2.3-0", "1.2.3-1", "1.3.0"]),
    (">= 1.0.0 < 2.0.0", ["1.5.0"], ["2.0.0"]),  # a space after an operator belongs to it
    ("1.2.x", ["1.2.0", "1.2.99"], ["1.3.0", "1.1.9"]),
    (">=1.x", ["1.0.0", "5.0.0"], ["0.9.0"]),
    ("<=1.2.x", ["1.2.9"], ["1.3.0"]),
    ("!=1.0.0", ["1.0.1"], ["1.0.0"]),
    ("1.0.0", ["1.0.0"], ["1.0.1"]),
    ("==1.0.0", ["1.0.0"], ["1.0.1"]),
])
def test_ranges_match_like_blang(rng, inside, outside):
    r = parse_range(rng)
    for s in inside:
        assert r(v(s)), (rng, s)
    for s in outside:
        assert not r(v(s)), (rng, s)


@pytest.mark.parametrize("rng,reason", [
    (">=v1.0.0", "without a 'v'"),
    (">=1.0 <1.2", "full semantic version"),
    ("^1.0.0", "not a comparator"),
    ("~1.0.0", "not a comparator"),
    ("", "empty"),
    ("|| >=1.0.0", "starts with"),
    (">=1.0.0 ||", "ends with"),
    (">=1.0.0 <01.2.0", "leading zeros"),
    (">=1.0.0-", "empty"),
    (">=", "no version"),
    # range.go expands any comparator holding an 'x' as a wildcard (strings.Contains(ap, "x")),
    # so a prerelease with an x fails with <=, >, = and != (and passes with < and >=)
    ("<=1.0.0-fix", "expands as a wildcard"),
    ("=1.0.0-x1", "expands as a wildcard"),
    (">1.0.0-xyz <2.0.0", "expands as a wildcard"),
])
def test_invalid_ranges_say_why(rng, reason):
    err = check_range(rng)
    assert err is not None and reason in err, err


def test_an_x_outside_a_wildcard_passes_where_blang_keeps_the_comparator():
    assert check_range("<1.0.0-fix") is None
    assert check_range(">=1.0.0-xyz") is None


def test_hyphen_range_parses_but_matches_nothing():
    # blang drops the one-character '-' part: two equalities ANDed
    r = parse_range("1.0.0 - 2.0.0")
    assert not any(r(v(s)) for s in ("1.0.0", "1.5.0", "2.0.0"))


def test_versions_are_strict_and_ordered_like_semver():
    assert v("1.0.0-alpha").compare(v("1.0.0-alpha.1")) == -1
    assert v("1.0.0-alpha.1").compare(v("1.0.0-alpha.beta")) == -1
    assert v("1.0.0-beta.11").compare(v("1.0.0-rc.1")) == -1
    assert v("1.0.0-rc.1").compare(v("1.0.0")) == -1
    assert v("1.0.0+build.1").compare(v("1.0.0")) == 0
    assert v("1.0.0-2").key() < v("1.0.0-10").key()
    for bad in ("1.0", "v1.0.0", "01.0.0", "1.0.0-01", "1.0.0+", "1.0.0-a..b", ""):
        with pytest.raises(SemverError):
            parse(bad)
    assert parse_tolerant("v1.2") == v("1.2.0")
