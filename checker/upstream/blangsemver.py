"""Semantic versions and ranges exactly as OLM and opm read them.

Upstream sources ported here:

- https://github.com/blang/semver/blob/v4.0.0/v4/semver.go (Parse, ParseTolerant, Compare)
- https://github.com/blang/semver/blob/v4.0.0/v4/range.go (ParseRange and its helpers)
- https://github.com/coreos/go-semver/blob/v0.3.1/semver/semver.go (NewVersion)
- https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/openshift/helpers.go
  (maxOpenShiftVersion)

OLM, opm and operator-registry parse versions with github.com/blang/semver/v4 ``Parse``
(strict semver 2.0: ``major.minor.patch``, no leading zeros, no ``v``) and ``olm.skipRange``
with its ``ParseRange``. That grammar is not npm's (``semantic_version``' NpmSpec) nor
PEP 440: no ``^``/``~``, no hyphen ranges (``1.0.0 - 2.0.0``), ``||`` between AND-groups,
space-separated comparators inside a group (``>=1.0.0 <2.0.0``), a space allowed after an
operator (``>= 1.0.0``), ``x`` wildcards (``1.2.x``, ``>=1.x``), ``!``/``!=`` for "not".

This module ports blang/semver v4.0.0 (the release operator-registry and OLM vendor):
``semver.go`` (Parse, Compare) and ``range.go`` (splitAndTrim, splitORParts,
expandWildcardVersion, splitComparatorVersion, parseComparator), including its quirks,
so that "valid" here means "valid for opm/OLM". Pure functions, no I/O.

This is the package's one place for version parsing; each function is named for the
upstream function it mirrors, so a caller picks the semantics of the component it models:

- ``parse`` -- blang ``Parse`` (strict): opm, operator-registry, FBC ``olm.package``
  versions, ``olm.skipRange`` versions;
- ``parse_tolerant`` -- blang ``ParseTolerant``: OLM's ``spec.version`` decoding, the
  cluster version, ``olm.maxOpenShiftVersion``;
- ``parse_range`` -- blang ``ParseRange`` (``olm.skipRange``);
- ``max_openshift_version`` -- OLM's ``maxOpenShiftVersion`` (operator-lifecycle-manager
  pkg/controller/operators/openshift/helpers.go);
- ``coreos_new_version`` / ``min_kube_version`` -- github.com/coreos/go-semver v0.3.1
  ``NewVersion``, which OLM's ``minKubeVersionStatus`` (pkg/controller/operators/olm/
  requirements.go) applies to ``spec.minKubeVersion``;
- ``npm_spec_contains`` -- the catalog CI's skipRange reading (python ``semantic_version``
  ``NpmSpec``, operator-pipelines).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

_NUM = set("0123456789")
_ALNUM = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")


class SemverError(ValueError):
    pass


@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    pre: tuple[tuple[bool, Any], ...] = ()  # (is_num, int or str) per identifier
    build: tuple[str, ...] = ()

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(v) for _n, v in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s

    def compare(self, o: "Version") -> int:
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre and not o.pre:
            return 0
        if not self.pre:
            return 1
        if not o.pre:
            return -1
        for (an, av), (bn, bv) in zip(self.pre, o.pre):
            if an and not bn:
                return -1
            if bn and not an:
                return 1
            if av != bv:
                return 1 if av > bv else -1
        if len(self.pre) == len(o.pre):
            return 0
        return -1 if len(self.pre) < len(o.pre) else 1

    def key(self) -> tuple[Any, ...]:
        """A sort key consistent with ``compare`` (build metadata ignored)."""
        pre = tuple((0, v, "") if n else (1, 0, v) for n, v in self.pre)
        return (self.major, self.minor, self.patch, 0 if self.pre else 1, pre)


def _only(s: str, allowed: set[str]) -> bool:
    return all(c in allowed for c in s)


def _leading_zero(s: str) -> bool:
    return len(s) > 1 and s[0] == "0"


def _uint(s: str, what: str) -> int:
    if s == "":
        raise SemverError(f"the {what} number is empty")
    if not _only(s, _NUM):
        raise SemverError(f"invalid character(s) in the {what} number '{s}'")
    if _leading_zero(s):
        raise SemverError(f"the {what} number '{s}' must not have leading zeros")
    v = int(s)
    if v >= 2 ** 64:
        raise SemverError(f"the {what} number '{s}' is too large")
    return v


def parse(s: str) -> Version:
    """blang/semver ``Parse``: strict ``major.minor.patch[-pre][+build]``."""
    if not isinstance(s, str):
        raise SemverError("the version must be a string")
    if s == "":
        raise SemverError("the version is empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise SemverError("no major.minor.patch found (all three numbers are required)")
    major = _uint(parts[0], "major")
    minor = _uint(parts[1], "minor")
    patch_str = parts[2]
    build: list[str] = []
    pre: list[str] = []
    if "+" in patch_str:
        i = patch_str.index("+")
        build = patch_str[i + 1:].split(".")
        patch_str = patch_str[:i]
    if "-" in patch_str:
        i = patch_str.index("-")
        pre = patch_str[i + 1:].split(".")
        patch_str = patch_str[:i]
    patch = _uint(patch_str, "patch")
    pre_out: list[tuple[bool, Any]] = []
    for p in pre:
        if p == "":
            raise SemverError("a pre-release identifier is empty")
        if _only(p, _NUM):
            if _leading_zero(p):
                raise SemverError(f"the numeric pre-release identifier '{p}' must not have leading zeros")
            pre_out.append((True, int(p)))
        elif _only(p, _ALNUM):
            pre_out.append((False, p))
        else:
            raise SemverError(f"invalid character(s) in the pre-release identifier '{p}'")
    for b in build:
        if b == "":
            raise SemverError("a build metadata identifier is empty")
        if not _only(b, _ALNUM):
            raise SemverError(f"invalid character(s) in the build metadata '{b}'")
    return Version(major, minor, patch, tuple(pre_out), tuple(build))


def try_parse(s: Any) -> Optional[Version]:
    try:
        return parse(s)
    except SemverError:
        return None


# Go's unicode.IsSpace (strings.TrimSpace): Python's str.strip() also removes \x1c-\x1f
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def go_trim_space(s: str) -> str:
    """Go ``strings.TrimSpace``."""
    return s.strip(_GO_SPACE)


def parse_tolerant(s: str) -> Version:
    """blang/semver ``ParseTolerant``: trims spaces and a leading ``v``, fills a missing
    minor/patch with 0, drops leading zeros. A short version with pre-release or build
    metadata (``4.8+build``, ``4.8-rc``) is refused, as upstream does."""
    if not isinstance(s, str):
        raise SemverError("the version must be a string")
    s = go_trim_space(s)
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if p == "" or p[0] not in _NUM:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise SemverError("a short version cannot carry pre-release or build metadata")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def try_parse_tolerant(s: Any) -> Optional[Version]:
    try:
        return parse_tolerant(s)
    except SemverError:
        return None


def is_strict(s: Any) -> bool:
    """True when blang ``Parse`` accepts ``s`` (semver 2.0.0, ASCII digits only)."""
    return try_parse(s) is not None


# ------------------------------------------------------------------------------------
# OLM's readers built on these parsers

MAX_OCP_PROPERTY = "olm.maxOpenShiftVersion"


def property_value_text(value: Any) -> str:
    """The text OLM holds for a property's value: the value's raw JSON (projection's
    ``Property.Value``), e.g. ``"4.8"`` with its quotes for a string."""
    return json.dumps(value, ensure_ascii=False, default=str)


def max_openshift_version(text: str) -> tuple[int, int]:
    """OLM's ``maxOpenShiftVersion`` (operator-lifecycle-manager
    pkg/controller/operators/openshift/helpers.go) for one declared value, given as OLM
    holds it (``property_value_text``): ``strings.Trim`` of every leading/trailing ``"``,
    an empty value refused, ``semver.ParseTolerant``, then the version must equal its
    ``{major}.{minor}`` truncation (``Version.EQ`` ignores build metadata, so ``4.8.0+b``
    passes; a patch or pre-release fails). Returns ``(major, minor)``; raises
    SemverError with OLM's own message."""
    value = text.strip('"')
    if value == "":
        raise SemverError('value cannot be "" (an empty string)')
    try:
        v = parse_tolerant(value)
    except SemverError as e:
        raise SemverError(f'failed to parse "{value}" as semver: {e}') from None
    if v.patch != 0 or v.pre:
        raise SemverError(f"property {MAX_OCP_PROPERTY} must specify only <major>.<minor> version, got invalid value {v}")
    return v.major, v.minor


@dataclass(frozen=True)
class CoreosVersion:
    major: int
    minor: int
    patch: int
    pre: str = ""
    metadata: str = ""


_COREOS_IDENTIFIER = re.compile(r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*", re.ASCII)


def _go_parse_int64(s: str) -> int:
    # strconv.ParseInt(s, 10, 64): ASCII digits (a sign cannot remain: '+' and '-' were split off)
    if s == "" or not _only(s, _NUM):
        raise SemverError(f"'{s}' is not a number")
    v = int(s)
    if v >= 2 ** 63:
        raise SemverError(f"'{s}' is too large")
    return v


def coreos_new_version(s: str) -> CoreosVersion:
    """github.com/coreos/go-semver v0.3.1 ``NewVersion``: build metadata split off at the
    first ``+``, the pre-release at the first ``-``, then exactly three dot-separated
    numbers. Unlike blang, leading zeros (``1.021.0``) are accepted; no space is trimmed."""
    if not isinstance(s, str):
        raise SemverError("the version must be a string")
    v = s
    metadata = pre = ""
    if "+" in v:
        v, metadata = v.split("+", 1)
    if "-" in v:
        v, pre = v.split("-", 1)
    parts = v.split(".", 2)
    if len(parts) != 3:
        raise SemverError(f"'{v}' is not in dotted-tri format")
    for what, ident in (("pre-release", pre), ("metadata", metadata)):
        if ident and not _COREOS_IDENTIFIER.fullmatch(ident):
            raise SemverError(f"the {what} '{ident}' is not a valid semver identifier")
    major, minor, patch = (_go_parse_int64(p) for p in parts)
    return CoreosVersion(major, minor, patch, pre, metadata)


def min_kube_version(s: str) -> Optional[CoreosVersion]:
    """OLM's ``minKubeVersionStatus`` (pkg/controller/operators/olm/requirements.go): an
    empty value is no requirement (None); otherwise ``strings.TrimPrefix(s, "v")`` then
    coreos ``NewVersion`` (a failure is the install's "CSV version parsing error")."""
    if s == "":
        return None
    return coreos_new_version(s[1:] if s.startswith("v") else s)


def npm_spec_contains(version: str, spec: str) -> bool:
    """The catalog CI's skipRange test (operator-pipelines' operator-repo,
    ``_resolve_skip_range``): ``semantic_version.Version(version) in
    semantic_version.NpmSpec(spec)``; False when either does not parse. The CI's own
    library is used, since npm range semantics (pre-releases excluded unless a comparator
    names the same major.minor.patch) are not OLM's."""
    import semantic_version

    try:
        return semantic_version.Version(version) in semantic_version.NpmSpec(spec)
    except ValueError:
        return False


# ------------------------------------------------------------------------------------
# Ranges

_COMPARATORS: dict[str, Callable[[int], bool]] = {
    "": lambda c: c == 0, "=": lambda c: c == 0, "==": lambda c: c == 0,
    ">": lambda c: c == 1, ">=": lambda c: c >= 0,
    "<": lambda c: c == -1, "<=": lambda c: c <= 0,
    "!": lambda c: c != 0, "!=": lambda c: c != 0,
}


@dataclass(frozen=True)
class Comparator:
    op: str
    version: Version

    def __call__(self, v: Version) -> bool:
        return _COMPARATORS[self.op](v.compare(self.version))

    def __str__(self) -> str:
        return f"{self.op}{self.version}"


@dataclass(frozen=True)
class Range:
    """OR of AND-groups of comparators."""

    groups: tuple[tuple[Comparator, ...], ...]

    def __call__(self, v: Version) -> bool:
        return any(all(c(v) for c in g) for g in self.groups)

    contains = __call__

    def __str__(self) -> str:
        return " || ".join(" ".join(str(c) for c in g) for g in self.groups)


def _split_and_trim(s: str) -> list[str]:
    # range.go splitAndTrim: split on spaces, except a space right after > < = (so ">= 1.0.0"
    # is one part); parts of one character are dropped (a quirk kept for fidelity).
    result = []
    last = 0
    last_char = ""
    for i, ch in enumerate(s):
        if ch == " " and last_char not in (">", "<", "="):
            if last < i - 1:
                result.append(s[last:i])
            last = i + 1
        elif ch != " ":
            last_char = ch
    if last < len(s) - 1:
        result.append(s[last:])
    return [r.replace(" ", "") for r in result]


def _split_or(parts: list[str]) -> list[list[str]]:
    out = []
    last = 0
    for i, p in enumerate(parts):
        if p == "||":
            if i == 0:
                raise SemverError("the range starts with '||'")
            out.append(parts[last:i])
            last = i + 1
    if last == len(parts):
        raise SemverError("the range ends with '||'" if parts else "the range is empty")
    out.append(parts[last:])
    return out


def _split_comparator(s: str) -> tuple[str, str]:
    for i, ch in enumerate(s):
        if ch in _NUM:
            return s[:i].strip(), s[i:]
    raise SemverError(f"'{s}' holds no version")


def _wildcard_type(v: str) -> int:
    parts = v.split(".")
    return len(parts) if parts[-1] == "x" and len(parts) in (1, 2, 3) else 0


def _flat(v: str) -> str:
    v2 = v.replace(".x.x", ".x", 1).replace(".x", ".0", 1)
    return v2 + ".0" if len(v2.split(".")) == 2 else v2


def _inc(v: str, idx: int) -> str:
    parts = v.split(".")
    try:
        parts[idx] = str(int(parts[idx]) + 1)
    except (ValueError, IndexError):
        return ""
    return ".".join(parts)


def _expand_wildcards(groups: list[list[str]]) -> list[list[str]]:
    out = []
    for g in groups:
        new = []
        for ap in g:
            op, vs = _split_comparator(ap)
            if "x" in ap:  # range.go: strings.Contains(ap, "x"), any x (a prerelease "-fix" too)
                wt = _wildcard_type(vs)
                flat = _flat(vs)
                inc = False
                if op == ">":
                    rop, inc = ">=", True
                elif op == ">=":
                    rop = ">="
                elif op == "<":
                    rop = "<"
                elif op == "<=":
                    rop, inc = "<", True
                elif op in ("", "=", "=="):
                    new.append(">=" + flat)
                    rop, inc = "<", True
                elif op in ("!=", "!"):
                    new.append("<" + flat)
                    rop, inc = ">=", True
                else:
                    rop = ""
                if inc:
                    rv = _inc(flat, 1) if wt == 3 else (_inc(flat, 0) if wt == 2 else "")
                else:
                    rv = flat
                if not rv:
                    # range.go leaves the comparator without a version, which ParseRange then refuses
                    raise SemverError(f"'{ap}' holds an 'x', which OLM's parser (blang/semver) expands as a wildcard "
                                      f"('1.2.x'), and it cannot expand this one: avoid an 'x' in a version's prerelease "
                                      f"or build part with this comparator")
                ap = rop + rv
            new.append(ap)
        out.append(new)
    return out


def parse_range(s: str) -> Range:
    """blang/semver v4 ``ParseRange``; raises SemverError with a reason people can act on."""
    if not isinstance(s, str):
        raise SemverError("the range must be a string")
    groups = _expand_wildcards(_split_or(_split_and_trim(s)))
    out = []
    for g in groups:
        comps = []
        for part in g:
            op, vs = _split_comparator(part)
            if op not in _COMPARATORS:
                hint = ""
                if op.endswith("v") or op == "v":
                    hint = " (write the version without a 'v')"
                elif op in ("^", "~", "~>", "=>", "=<"):
                    hint = " (OLM's ranges know only =, !=, >, >=, <, <=)"
                raise SemverError(f"'{op}' in '{part}' is not a comparator{hint}")
            try:
                v = parse(vs)
            except SemverError as e:
                raise SemverError(f"'{vs}' in '{part}' is not a full semantic version: {e}") from None
            comps.append(Comparator(op, v))
        if not comps:
            raise SemverError("the range is empty")
        out.append(tuple(comps))
    return Range(tuple(out))


def check_range(s: str) -> Optional[str]:
    """None when ``s`` is a range OLM accepts, else the reason."""
    try:
        parse_range(s)
        return None
    except SemverError as e:
        return str(e)


def range_fn(s: str) -> Optional[Callable[[Version], bool]]:
    try:
        return parse_range(s)
    except SemverError:
        return None
