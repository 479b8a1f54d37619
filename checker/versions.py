"""The OpenShift version engine: releases table, label grammar, maxOpenShiftVersion,
minKubeVersion, and the releases a bundle is published to and installable on.

Pure functions over data; the tables live in ``checker/data/`` (see versions.md).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

import yaml

from .upstream.blangsemver import SemverError, go_trim_space, max_openshift_version, min_kube_version, property_value_text, try_parse_tolerant
from .finding import clip  # noqa: F401 (the version rules quote values with it)
from .nodes import Mapping, Node, Scalar, Sequence

DATA = os.path.join(os.path.dirname(__file__), "data")

Ver = tuple  # (major, minor)


@dataclass(frozen=True)
class Problem:
    """What is wrong with a parsed value, as a finding says it: ``message`` (one sentence, what
    is wrong) and ``detail`` (the why and the fix)."""

    message: str
    detail: str = ""


def vkey(s: str) -> Ver:
    """(major, minor) of a release "4.16"; another name of a release is its canonical one
    ("4.23" is 5.0: ``norm``)."""
    a, b = s.split(".")[:2]
    return norm((int(a), int(b)))


def norm(v: Ver) -> Ver:
    """The canonical (major, minor) of a release: (4, 23) is (5, 0), as OLM's
    ``normalizeOCPVersion`` has it (ocp.yaml ``aliases``)."""
    return _aliases().get(v, v)


def vstr(v: Ver) -> str:
    return f"{v[0]}.{v[1]}"


@dataclass(frozen=True)
class Release:
    ocp: str
    kube: str
    ga: bool

    @property
    def key(self) -> Ver:
        return vkey(self.ocp)

    @property
    def kube_key(self) -> Ver:
        return vkey(self.kube)

    def label(self) -> str:
        return self.ocp if self.ga else f"{self.ocp} (not GA)"


class OcpTable:
    def __init__(self, releases: list, catalogs_from: Optional[Ver] = None):
        self.releases = sorted(releases, key=lambda r: r.key)
        self.by_ocp = {r.ocp: r for r in self.releases}
        # first release with per-release bundle catalogs (ocp.yaml ``catalogs_from``)
        self.catalogs_from = catalogs_from if catalogs_from is not None else self.releases[0].key

    @classmethod
    def load(cls, extra: Optional[list] = None) -> "OcpTable":
        rel = {r.ocp: r for r in _builtin_releases()}
        for e in extra or []:
            # an entry for another name of a known release ("4.23") corrects that release (5.0)
            r = Release(_canonical_name(str(e["ocp"])), str(e["kube"]), bool(e.get("ga", True)))
            rel[r.ocp] = r
        return cls(list(rel.values()), _builtin_catalogs_from())

    @property
    def catalog_releases(self) -> list:
        """Releases with their own bundle catalog (4.6 and later): where a bundle can be published today."""
        return [r for r in self.releases if r.key >= self.catalogs_from]

    def with_catalog(self, releases) -> list:
        """``releases`` (Release or "4.x") that have their own bundle catalog."""
        return [r for r in releases if vkey(getattr(r, "ocp", r)) >= self.catalogs_from]

    @property
    def first(self) -> Release:
        return self.releases[0]

    @property
    def newest(self) -> Release:
        return self.releases[-1]

    @property
    def newest_ga(self) -> Release:
        ga = [r for r in self.releases if r.ga]
        return ga[-1] if ga else self.releases[-1]

    def get(self, v) -> Optional[Release]:
        """The release named "4.16" or (4, 16); another name of a release ("4.23") gives its
        canonical one (5.0)."""
        if isinstance(v, tuple):
            v = vstr(norm(v))
        r = self.by_ocp.get(v)
        if r is None and isinstance(v, str):
            r = self.by_ocp.get(_canonical_name(v))
        return r

    def between(self, lo: Optional[Ver], hi: Optional[Ver]) -> list:
        return [r for r in self.releases if (lo is None or r.key >= lo) and (hi is None or r.key <= hi)]

    def first_with_kube(self, kube: Ver) -> Optional[Release]:
        for r in self.releases:
            if r.kube_key >= kube:
                return r
        return None

    def signature(self) -> str:
        return ";".join(f"{r.ocp}={r.kube}{'' if r.ga else '?'}" for r in self.releases) + f";catalogs>={vstr(self.catalogs_from)}"


@lru_cache(maxsize=1)
def _ocp_data() -> dict:
    with open(os.path.join(DATA, "ocp.yaml"), encoding="utf-8") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _builtin_releases() -> tuple:
    return tuple(Release(str(e["ocp"]), str(e["kube"]), bool(e.get("ga", True))) for e in _ocp_data()["releases"])


@lru_cache(maxsize=1)
def _aliases() -> dict:
    """(major, minor) of another name of a release -> the release's (ocp.yaml ``aliases``)."""
    out = {}
    for e in _ocp_data()["releases"]:
        a, b = str(e["ocp"]).split(".")[:2]
        for al in e.get("aliases") or ():
            x, y = str(al).split(".")[:2]
            out[(int(x), int(y))] = (int(a), int(b))
    return out


def _canonical_name(v: str) -> str:
    """"4.23" -> "5.0" (the release's canonical name); anything else as given."""
    m = re.fullmatch(r"(\d+)\.(\d+)", v)
    return vstr(norm((int(m.group(1)), int(m.group(2))))) if m else v


def _builtin_catalogs_from() -> Optional[Ver]:
    v = _ocp_data().get("catalogs_from")
    return vkey(str(v)) if v else None


@dataclass(frozen=True)
class ApiEntry:
    group: str
    version: str
    kinds: tuple
    deprecated: Optional[Ver]
    removed: Optional[Ver]
    use: str

    @property
    def gv(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


@dataclass(frozen=True)
class IntroEntry:
    group: str
    version: str
    kinds: tuple
    since: Ver


class ApiTable:
    def __init__(self, removed: list, introduced: list):
        self.removed = removed
        self.introduced = introduced
        self._by_gvk = {}
        for e in removed:
            for k in e.kinds:
                self._by_gvk[(e.group, e.version, k)] = e
        self._intro = {}
        for e in introduced:
            for k in e.kinds:
                self._intro[(e.group, e.version, k)] = e

    @classmethod
    def load(cls, extra: Optional[dict] = None) -> "ApiTable":
        with open(os.path.join(DATA, "apis.yaml"), encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        extra = extra or {}
        rem = [_api_entry(e) for e in list(data.get("removed", [])) + list(extra.get("removed", []))]
        intro = [
            IntroEntry(str(e["group"]), str(e["version"]), tuple(e["kinds"]), vkey(str(e["since"])))
            for e in list(data.get("introduced", [])) + list(extra.get("introduced", []))
        ]
        return cls(rem, intro)

    def lookup(self, group: str, version: str, kind: str) -> Optional[ApiEntry]:
        return self._by_gvk.get((group, version, kind))

    def lookup_kind_version(self, kind: str, version: str) -> list:
        """Entries for a kind+version without a group (CSV owned-CRD `resources`)."""
        return [e for (g, v, k), e in self._by_gvk.items() if k == kind and v == version]

    def introduced_in(self, group: str, version: str, kind: str) -> Optional[IntroEntry]:
        return self._intro.get((group, version, kind))


def _api_entry(e: dict) -> ApiEntry:
    return ApiEntry(
        str(e["group"]), str(e["version"]), tuple(e["kinds"]),
        vkey(str(e["deprecated"])) if e.get("deprecated") else None,
        vkey(str(e["removed"])) if e.get("removed") else None,
        str(e.get("use", "")),
    )


# ---------------------------------------------------------------------------------------
# com.redhat.openshift.versions

LABEL_KEY = "com.redhat.openshift.versions"
ACCEPTED_FORMS = ("'v4.12' (4.12 and every later release), '=v4.12' (4.12 only), "
                  "'v4.12-v4.16' (4.12 to 4.16)")

_V = r"(v|V)?(\d+)\.(\d+)"
_OPEN = re.compile(rf"{_V}")
_EXACT = re.compile(rf"={_V}")
_RANGE = re.compile(rf"{_V}-{_V}")


@dataclass
class LabelRange:
    raw: str
    lower: Optional[Ver] = None
    upper: Optional[Ver] = None  # None: open-ended
    exact: bool = False
    error: Optional[Problem] = None  # ocp-versions-syntax's message and detail
    style: list = field(default_factory=list)  # ocp-versions-style's (Problem entries)
    canonical: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def contains(self, v: Ver) -> bool:
        if not self.ok:
            return False
        if self.lower is not None and v < self.lower:
            return False
        if self.upper is not None and v > self.upper:
            return False
        return True


def parse_label(value, raw: Optional[str] = None) -> LabelRange:  # noqa: C901
    """Parse a com.redhat.openshift.versions value (a Python value from YAML or a LABEL).

    ``raw`` is the text as written (to explain YAML numbers such as an unquoted 4.10).
    """
    shown = raw if raw is not None else str(value)
    if not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return LabelRange(shown, error=Problem(
                f"'{clip(shown)}' is not quoted, so YAML reads it as the number {value!s}"
                + (f" (not {clip(shown)})" if str(value) != shown else ""),
                f"Catalog tooling cannot read a number as a version. Quote it and add the 'v': \"v{shown}\"."))
        return LabelRange(shown, error=Problem(f"the value is {'empty' if value is None else 'not a string'}",
                                            f"It must be a string such as {ACCEPTED_FORMS}."))
    s = value
    if s == "":
        return LabelRange(s, error=Problem("the value is empty", f"Write one of the accepted forms: {ACCEPTED_FORMS}."))
    if s != s.strip() or re.search(r"\s", s):
        return LabelRange(s, error=Problem(f"'{clip(s)}' contains spaces, which catalog tooling rejects",
                                        f"Write it without spaces, e.g. '{_nospace(s)}'."))
    if "," in s:
        if s in ("v4.5,v4.6", "v4.6,v4.5"):
            return LabelRange(s, lower=(4, 5), canonical="v4.5", style=[
                Problem(f"'{s}' is the legacy comma form, meaning 4.5 and later",
                     "It is accepted only as 'v4.5,v4.6'; write \"v4.5\".")])
        return LabelRange(s, error=Problem(f"'{clip(s)}' is a comma list, accepted only as the legacy 'v4.5,v4.6'",
                                        f"Any other list keeps the bundle out of every catalog. Use a range instead: {ACCEPTED_FORMS}."))
    out = LabelRange(s)
    m = _EXACT.fullmatch(s)
    if m:
        out.exact = True
        out.lower = out.upper = (int(m.group(2)), int(m.group(3)))
        vs = [m.group(1)]
    else:
        m = _RANGE.fullmatch(s)
        if m:
            out.lower = (int(m.group(2)), int(m.group(3)))
            out.upper = (int(m.group(5)), int(m.group(6)))
            vs = [m.group(1), m.group(4)]
        else:
            m = _OPEN.fullmatch(s)
            if m:
                out.lower = (int(m.group(2)), int(m.group(3)))
                vs = [m.group(1)]
            else:
                out.error = Problem(f"'{clip(s)}' is not a valid OpenShift version range", f"Accepted forms: {ACCEPTED_FORMS}.")
                if s.startswith("=") and "-" in s:
                    out.error = Problem(f"'{clip(s)}' combines '=' (this release only) with a range",
                                     f"Write '{s[1:]}' for a range or '{s.split('-')[0]}' for one release.")
                elif s.endswith("-"):
                    out.error = Problem(f"'{clip(s)}' has no upper bound after '-'",
                                     f"Write '{s[:-1]}' for that release and every later one, or give the upper bound.")
                return out
    if "V" in vs:
        out.error = Problem(f"'{s}' uses a capital 'V', which catalog tooling does not accept", f"Write '{s.replace('V', 'v')}'.")
        return out
    # another name of a release is that release: 'v4.20-v4.23' ends at 5.0 (OLM's normalizeOCPVersion);
    # the canonical spelling keeps the numbers as written
    canon = _canonical(out)
    out.lower = norm(out.lower) if out.lower is not None else None
    out.upper = norm(out.upper) if out.upper is not None else None
    if out.upper is not None and out.lower is not None and out.lower > out.upper:
        out.error = Problem(f"'{s}' is empty: the lower bound {vstr(out.lower)} is above the upper bound {vstr(out.upper)}",
                         f"Swap them: 'v{vstr(out.upper)}-v{vstr(out.lower)}'.")
        return out
    out.canonical = canon
    if None in vs:
        out.style.append(Problem(f"'{s}' lacks the 'v' the documented form has before each version",
                              f"Catalog tooling accepts it, but write \"{canon}\"."))
    if out.lower is not None and out.lower[0] < 4:
        out.style.append(Problem(
            f"'{s}' starts at {vstr(out.lower)}, which is not an OpenShift 4 catalog",
            "Bundles are only published to OpenShift 4 catalogs, so only the 4.x part counts. Write the range from the first "
            "OpenShift 4 release you support."))
    return out


def _canonical(r: LabelRange) -> str:
    if r.exact:
        return f"=v{vstr(r.lower)}"
    if r.upper is None:
        return f"v{vstr(r.lower)}"
    return f"v{vstr(r.lower)}-v{vstr(r.upper)}"


def _nospace(s: str) -> str:
    return re.sub(r"\s+", "", s)


def label_releases(r: LabelRange, table: OcpTable) -> list:
    """Known releases a valid label publishes to."""
    if not r.ok:
        return []
    return [rel for rel in table.releases if r.contains(rel.key)]


def label_unknown(r: LabelRange, table: OcpTable) -> list:
    """Releases the label names that the table does not know (above it, or in 4.x gaps)."""
    if not r.ok:
        return []
    out = []
    for v in (r.lower, r.upper):
        # above the table, or a 4.x release that does not exist (4.24: the release after 4.22 is 5.0);
        # not 4.0, below the first release (OpenShift 4 started at 4.1), which names nothing more
        if v is not None and v > table.first.key and table.get(v) is None and vstr(v) not in out:
            out.append(vstr(v))
    return out


# ---------------------------------------------------------------------------------------
# maxOpenShiftVersion

MAX_TYPE = "olm.maxOpenShiftVersion"


@dataclass
class MaxDecl:
    """One declaration of olm.maxOpenShiftVersion."""

    where: str  # "csv-olm-properties" | "properties.yaml"
    file: object  # SourceFile
    node: Node  # where to point
    value: object  # python value as declared
    raw: str
    version: Optional[Ver] = None  # parsed {major}.{minor}, when usable by OLM
    error: Optional[Problem] = None  # OLM refuses it
    warning: Optional[Problem] = None  # accepted, but write {major}.{minor}


class JsonNumber(float):
    """A JSON number that keeps the text it was written as: OLM holds a property's value as its
    raw JSON (projection's ``Property.Value``), so ``4.10`` in an olm.properties annotation
    reaches OLM as ``4.10``, where a JSON or YAML decoder reads the float 4.1."""

    raw: str = ""


def _json_number(text: str) -> JsonNumber:
    n = JsonNumber(text)
    n.raw = text
    return n


def loads_keeping_numbers(text: str):
    """``json.loads`` whose non-integer numbers are ``JsonNumber`` (their written text kept)."""
    return json.loads(text, parse_float=_json_number)


def parse_max(value, raw: Optional[str] = None, json_text: bool = False) -> tuple:
    """(version, error, warning) for a maxOpenShiftVersion value, as today's OLM reads it
    (``blangsemver.max_openshift_version``: the value's JSON text, quotes trimmed, blang
    ``ParseTolerant``, only {major}.{minor}). ``raw`` is the value as written; ``json_text``
    says it is the raw JSON OLM holds (the olm.properties annotation), not YAML that opm
    converts (metadata/properties.yaml)."""
    shown = raw if raw is not None else json.dumps(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None, Problem(f"the value {clip(shown)} is not a string", "Write it as a quoted \"{major}.{minor}\" string, e.g. \"4.8\"."), None
    if isinstance(value, (int, float)):
        read = repr(float(value)) if isinstance(value, float) else str(value)
        if raw is not None and raw != read:
            # two readings (4.10 as written, 4.1 as a float): never pick one for the author
            if json_text:
                what = f"the JSON number {clip(raw, 20)} is not a string: {clip(raw, 20)} as written; JSON and YAML tools read {read}"
                why = (f"Today's OLM reads the property's raw JSON text, {raw}; tools that decode the JSON read {read} (older OLM "
                       "releases fail on a number).")
            else:
                what = f"the unquoted {clip(raw, 20)} is a number, not a string: {clip(raw, 20)} as written; YAML reads {read}"
                why = (f"opm reads properties.yaml with a YAML parser, so OLM gets {read} and blocks cluster upgrades past "
                       f"OpenShift {read} (older OLM releases fail on a number).")
            return None, Problem(what, f"{why} Quote the version you mean: \"{raw}\" (as written) or \"{read}\"."), None
        what = f"{shown} is a number"
        return None, Problem(f"{what}, not a string",
                             f"OLM expects a string (older OLM releases fail on a number). Quote it: \"{raw or value}\"."), None
    text = property_value_text(value)
    s = go_trim_space(text.strip('"'))
    if s == "":
        return None, Problem("the value is empty", "OLM reports the CSV as having an invalid olm.maxOpenShiftVersion and blocks every minor "
                          "cluster upgrade. Write \"{major}.{minor}\", e.g. \"4.8\"."), None
    v = try_parse_tolerant(text.strip('"'))
    if v is None:
        short = try_parse_tolerant(s.split("+", 1)[0]) if "+" in s else None
        if short is not None and not short.pre and short.patch == 0:
            return None, Problem(f"'{clip(s)}' is not a version OLM can parse: build metadata on a version without a patch part",
                              "OLM's parser (blang/semver ParseTolerant) refuses it, and OLM then blocks every minor cluster "
                              f"upgrade. Write \"{vstr((short.major, short.minor))}\"."), None
        return None, Problem(f"'{clip(s)}' is not a version OLM can parse", "OLM then blocks every minor cluster upgrade. Write "
                          "\"{major}.{minor}\", e.g. \"4.8\"."), None
    ver = (v.major, v.minor)
    try:
        max_openshift_version(text)
    except SemverError:
        return None, Problem(f"'{clip(s)}' names a patch or pre-release; OLM accepts only {{major}}.{{minor}} here",
                          f"OLM reports the CSV as invalid and blocks every minor cluster upgrade. Write \"{vstr(ver)}\"."), None
    written = (s[1:] if s.startswith("v") else s).split(".", 2)
    if len(written) != 2 or v.build or s.startswith("v"):
        return ver, None, Problem(f"'{clip(s)}' is not in the documented form \"{{major}}.{{minor}}\"",
                               f"Today's OLM accepts it, but write \"{vstr(ver)}\".")
    return ver, None, None


def max_declarations(csv_manifest, properties_file) -> list:
    """Every olm.maxOpenShiftVersion declaration OLM reads, in the CSV's olm.properties
    annotation and metadata/properties.yaml. Invalid olm.properties JSON is a declaration
    with an error (OLM cannot read any property from it)."""
    out: list = []
    if csv_manifest is not None:
        node = csv_manifest.annotation("olm.properties")
        if node is not None:
            raw = node.value
            if not isinstance(raw, str):
                out.append(MaxDecl("csv-olm-properties", csv_manifest.file, node, raw, node.raw,
                                   error=Problem("the olm.properties annotation is not a string",
                                             "It must be a string holding a JSON list; OLM cannot read it.")))
            else:
                try:
                    props = loads_keeping_numbers(raw)
                except ValueError as e:
                    if MAX_TYPE in raw:
                        out.append(MaxDecl("csv-olm-properties", csv_manifest.file, node, raw, raw,
                                           error=Problem(f"the olm.properties annotation is not valid JSON ({getattr(e, 'msg', str(e))} "
                                                         f"at character {getattr(e, 'pos', 0) + 1})",
                                                      "OLM cannot read olm.maxOpenShiftVersion from it and blocks every minor cluster upgrade.")))
                    props = []
                if isinstance(props, list):
                    for p in props:
                        if isinstance(p, dict) and p.get("type") == MAX_TYPE:
                            v = p.get("value")
                            text = v.raw if isinstance(v, JsonNumber) else json.dumps(v)
                            d = MaxDecl("csv-olm-properties", csv_manifest.file, node, v, text)
                            d.version, d.error, d.warning = parse_max(v, text if isinstance(v, JsonNumber) else None, json_text=True)
                            out.append(d)
    if properties_file is not None and properties_file.documents:
        doc = properties_file.documents[0]
        props = doc.get("properties") if isinstance(doc, Mapping) else None
        if isinstance(props, Sequence):
            for p in props:
                if isinstance(p, Mapping) and p.str("type") == MAX_TYPE:
                    vnode = p.get("value")
                    if vnode is None:
                        out.append(MaxDecl("properties.yaml", properties_file, p, None, "",
                                           error=Problem("the property has no value", "Write value: \"4.8\" ({major}.{minor}, quoted).")))
                        continue
                    if isinstance(vnode, Scalar):
                        d = MaxDecl("properties.yaml", properties_file, vnode, vnode.value, vnode.raw)
                        d.version, d.error, d.warning = parse_max(vnode.value, vnode.raw if vnode.style is None else None)
                    else:
                        d = MaxDecl("properties.yaml", properties_file, vnode, None, "",
                                    error=Problem(f"the value is {vnode.type_name()}, not a string", "Write value: \"4.8\"."))
                    out.append(d)
    return out


# ---------------------------------------------------------------------------------------
# minKubeVersion

def parse_min_kube(value, raw: Optional[str] = None) -> tuple:
    """(kube (major, minor), error) as OLM reads spec.minKubeVersion
    (``blangsemver.min_kube_version``: coreos/go-semver after a leading ``v``; an empty
    value is no requirement)."""
    shown = raw if raw is not None else str(value)
    if not isinstance(value, str):
        return None, Problem(f"minKubeVersion {clip(shown)} is not a string; YAML reads it as a number",
                          "OLM needs a quoted 'major.minor.patch' version, e.g. \"1.21.0\".")
    try:
        v = min_kube_version(value)
    except SemverError:
        s = value.strip()
        if s.startswith("v"):
            s = s[1:]
        if value != value.strip() and parse_min_kube(value.strip())[1] is None:
            hint = f" Remove the surrounding spaces: \"{value.strip()}\" (OLM does not trim them)."
        elif re.fullmatch(r"(\d+)\.(\d+)", s, re.ASCII):
            hint = f" Write \"{s}.0\"."
        else:
            hint = ' Write e.g. "1.21.0".'
        return None, Problem(f"minKubeVersion '{clip(value)}' is not a full 'major.minor.patch' version",
                          f"OLM fails the install with \"CSV version parsing error\".{hint}")
    if v is None:
        return None, None
    return (v.major, v.minor), None


def release_ranges(versions: list, preview=()) -> str:
    """['4.12','4.13','4.14','4.16'] -> '4.12-4.14, 4.16' (releases in table order); the
    releases in ``preview`` (not GA) are set apart: '4.12-4.22, 4.23 (not GA)'."""
    if not versions:
        return ""

    key = vkey

    def follows(v, prev) -> bool:
        """v is the release after prev: the next minor, or the next major's .0 after the last
        4.x (4.22 -> 5.0, as 4.23 is 5.0)."""
        a, b = key(prev)
        return key(v) == norm((a, b + 1))

    preview = set(preview or ())
    vs = sorted(set(versions), key=key)
    runs, start, prev = [], vs[0], vs[0]
    for v in vs[1:]:
        if follows(v, prev) and (v in preview) == (prev in preview):
            prev = v
            continue
        runs.append((start, prev))
        start = prev = v
    runs.append((start, prev))
    return ", ".join((a if a == b else f"{a}-{b}") + (" (not GA)" if a in preview else "") for a, b in runs)
