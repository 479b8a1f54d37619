"""Catalog-repository parts beyond bundles: ``catalogs/v4.X/<operator>/catalog.{yaml,json}``
(file-based catalogs, FBC) and what ``operators/<operator>/ci.yaml`` says about them.

Called by ``discover`` (the loading side: the only place here that reads files). Only the
catalogs of operators being loaded are read, and from each blob only what the rules need
(schema, name, package, defaultChannel, entries, image, relatedImages, the properties'
types and the ``olm.package`` property's value): the large inline objects
(``olm.bundle.object`` data, icons, CSV metadata) are checked for syntax but never built.

A catalog the operator's ci.yaml maps (``fbc.catalog_mapping[].catalog_names``) that is
missing on disk is recorded as missing (``FbcCatalog.missing``): its membership is unknown,
so rules neither use it as "not listed" nor report it as a mismatch (real checkouts can
omit very large files).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from .model import Pos
from .nodes import Mapping, Scalar, Sequence
from .yamlload import Problem, decode, parse

# Subtrees no catalog rule reads: parsed (syntax, duplicates, limits) but not built.
FBC_SKIP_KEYS = frozenset({"data", "base64data", "icon", "description", "annotations", "crdDescriptions",
                           "apiServiceDefinitions", "nativeAPIs", "alm-examples", "spec", "links",
                           "maintainers", "keywords", "labels", "provider"})
CATALOG_DIR = re.compile(r"v(\d+)\.(\d+)")
CATALOG_FILES = ("catalog.yaml", "catalog.yml", "catalog.json")


@dataclass
class FbcBlob:
    """One FBC blob: its schema, the fields the rules read, and where it is."""

    schema: Optional[str]
    root: object  # the blob's node (Mapping) for YAML; a plain dict for JSON
    pos: Pos
    index: int

    def get(self, key: str):
        r = self.root
        if isinstance(r, Mapping):
            v = r.get(key)
            if isinstance(v, Scalar):
                return v.value
            return v
        if isinstance(r, dict):
            return r.get(key)
        return None

    def str(self, key: str) -> Optional[str]:
        v = self.get(key)
        return v if isinstance(v, str) else None


@dataclass
class FbcCatalog:
    """catalogs/<release dir>/<operator>/catalog.* (or its absence)."""

    ocp: str  # "4.18"
    release_dir: str  # "v4.18"
    operator: str
    path: Optional[str] = None  # absolute path of the file
    rel: Optional[str] = None  # display path (of the file, or of the expected directory)
    fmt: str = "yaml"  # yaml | json
    blobs: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # yamlload.Problem (syntax, limits)
    missing: bool = False  # mapped by ci.yaml but not on disk
    readable: bool = True
    bundle_names: set = field(default_factory=set)  # olm.bundle names (CSV names) it lists

    @property
    def known(self) -> bool:
        """Membership can be trusted (the file is there and parsed completely)."""
        return not self.missing and self.readable


@dataclass
class OperatorCatalogs:
    operator: str
    catalogs: dict = field(default_factory=dict)  # ocp -> FbcCatalog
    fbc_enabled: bool = False
    mapped: list = field(default_factory=list)  # release dirs named in ci.yaml catalog_mapping
    live_releases: list = field(default_factory=list)  # releases with a catalogs/v4.X dir in the repository
    # what rule families derive from the catalogs once per operator instead of once per bundle
    # (e.g. the newest version the catalogs list: ``rules.versions._pending``)
    derived: dict = field(default_factory=dict)


def ci_data(op) -> Optional[Mapping]:
    """The top-level mapping of an operator's ci.yaml, or None."""
    f = getattr(op, "ci_file", None)
    if f is None or not f.documents:
        return None
    doc = f.documents[0]
    return doc if isinstance(doc, Mapping) else None


def fbc_enabled(ci: Optional[Mapping]) -> bool:
    fbc = ci.get("fbc") if ci is not None else None
    en = fbc.get("enabled") if isinstance(fbc, Mapping) else None
    return isinstance(en, Scalar) and en.value is True


def mapped_catalogs(ci: Optional[Mapping]) -> list:
    fbc = ci.get("fbc") if ci is not None else None
    cm = fbc.get("catalog_mapping") if isinstance(fbc, Mapping) else None
    out = []
    if isinstance(cm, Sequence):
        for item in cm:
            names = item.get("catalog_names") if isinstance(item, Mapping) else None
            if isinstance(names, Sequence):
                for n in names:
                    if isinstance(n, Scalar) and isinstance(n.value, str) and n.value not in out:
                        out.append(n.value)
    return out


def release_of(dirname: str) -> Optional[str]:
    """The release of a catalogs/ directory: "v4.18" -> "4.18"; "v5.0" and "v4.23" -> "5.0" (one
    release: ``versions.norm``)."""
    from .versions import norm, vstr

    m = CATALOG_DIR.fullmatch(dirname)
    return vstr(norm((int(m.group(1)), int(m.group(2))))) if m else None


def catalogs_root(op) -> Optional[str]:
    """<repository>/catalogs for operators/<name>/ (None when there is none)."""
    repo_root = os.path.dirname(os.path.dirname(op.path))
    d = os.path.join(repo_root, "catalogs")
    return d if os.path.isdir(d) else None


def load_operator_catalogs(reader, op) -> OperatorCatalogs:
    ci = ci_data(op)
    oc = OperatorCatalogs(op.name, fbc_enabled=fbc_enabled(ci), mapped=mapped_catalogs(ci))
    root = catalogs_root(op)
    if root is None:
        return oc
    try:
        release_dirs = sorted(e.name for e in os.scandir(root) if e.is_dir() and release_of(e.name))
    except OSError:
        release_dirs = []
    oc.live_releases = [release_of(d) for d in release_dirs]
    parsed: dict = {}  # the same catalog file in several releases: parsed once
    for d in sorted(set(release_dirs) | {m for m in oc.mapped if release_of(m)}):
        ocp = release_of(d)
        opdir = os.path.join(root, d, op.name)
        path = None
        for name in CATALOG_FILES:
            p = os.path.join(opdir, name)
            if os.path.lexists(p):
                path = p
                break
        if path is None:
            if d in oc.mapped:
                oc.catalogs[ocp] = FbcCatalog(ocp, d, op.name, rel=reader.rel(opdir), missing=True, readable=False)
            continue
        oc.catalogs[ocp] = read_catalog(reader, path, ocp, d, op.name, parsed)
    return oc


def read_catalog(reader, path: str, ocp: str, release_dir: str, operator: str, parsed: Optional[dict] = None) -> FbcCatalog:
    """One release's catalog file. ``parsed`` (content digest -> what parsing it gave): an
    operator's catalog is often the same file in every release (sailoperator's 1.1 MB
    catalog.yaml in six releases: 34 MB of nodes when built six times), so it is parsed once
    and its documents are shared (rules only read them)."""
    from .model import SourceFile

    cat = FbcCatalog(ocp, release_dir, operator, path=path, rel=reader.rel(path),
                     fmt="json" if path.endswith(".json") else "yaml")
    sf = SourceFile(path=path, rel=cat.rel)
    data = reader.read_bytes(path, sf)
    if data is None:
        cat.problems.extend(sf.problems)
        cat.readable = False
        return cat
    key = (hashlib.sha256(data).digest(), cat.fmt)
    reader.note_digest(path, data, key[0])  # for the result cache's keys (``cache.Cache.defer``)
    got = parsed.get(key) if parsed is not None else None
    if got is None:
        got = _parse_catalog(data, cat.fmt, reader.limits)
        if parsed is not None:
            parsed[key] = got
    del data
    entries, problems, readable = got
    cat.problems.extend(problems)
    cat.readable = readable
    for schema, doc, line, col, i in entries:
        cat.blobs.append(FbcBlob(schema, doc, Pos(cat.rel, line, col), i))
    for b in cat.blobs:
        if b.schema == "olm.bundle" and b.str("name"):
            cat.bundle_names.add(b.str("name"))
    return cat


_BIG_PROPERTY = re.compile(r"( *)(- )?type: (?:olm\.csv\.metadata|olm\.bundle\.object)[ \t]*")


def _prune(text: str) -> str:
    """Blank out the block values of ``olm.csv.metadata`` / ``olm.bundle.object`` properties
    (most of a rendered catalog's YAML events, none of them read by a rule), keeping every
    line (so every position) of the rest. Only the block layout ``opm render`` writes
    (``- type: ...`` then ``value:`` on its own line with a deeper-indented block) is pruned;
    anything else is left for the full parse."""
    if "olm.csv.metadata" not in text and "olm.bundle.object" not in text:
        return text
    lines = text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        m = _BIG_PROPERTY.fullmatch(lines[i])
        if m is None:
            i += 1
            continue
        ind = len(m.group(1)) + (2 if m.group(2) else 0)
        j = i + 1
        while j < n and lines[j].strip() == "":
            j += 1
        if j < n and lines[j] == " " * ind + "value:":
            k = j + 1
            while k < n and (lines[k].strip() == "" or len(lines[k]) - len(lines[k].lstrip(" ")) > ind):
                k += 1
            if k > j + 1:
                lines[j] = " " * ind + "value: {}"
                for x in range(j + 1, k):
                    lines[x] = ""
            i = k
        else:
            i = j
    return "\n".join(lines)


def _parse_catalog(data: bytes, fmt: str, limits) -> tuple:
    """([(schema, document, line, column, index)], problems, readable) of a catalog file's
    bytes."""
    text, problem = decode(data)
    if problem is not None:
        return [], [problem], False
    if fmt == "json":
        return _read_json(text)
    entries = []
    docs, problems = parse(_prune(text), limits, FBC_SKIP_KEYS)
    readable = not any(p.rule in ("yaml-syntax", "yaml-limits") for p in problems)
    for i, doc in enumerate(docs):
        if doc is None:
            continue
        schema = doc.get("schema") if isinstance(doc, Mapping) else None
        entries.append((schema.value if isinstance(schema, Scalar) and isinstance(schema.value, str) else None,
                        doc, doc.line, doc.col, i))
    return entries, problems, readable


def _read_json(text: str) -> tuple:
    """A JSON catalog: a stream of JSON objects (``opm render`` output), one blob each."""
    entries, problems, readable = [], [], True
    dec = json.JSONDecoder()
    i, n, idx = 0, len(text), 0
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        line = text.count("\n", 0, i) + 1
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError as e:
            pos = getattr(e, "pos", i) or i
            ln = text.count("\n", 0, pos) + 1
            cl = pos - (text.rfind("\n", 0, pos) + 1) + 1
            problems.append(Problem("yaml-syntax", ln, cl, f"JSON syntax error: {getattr(e, 'msg', str(e))}",
                                    detail="opm cannot read the catalog until it is fixed. Correct the JSON at this position."))
            readable = False
            break
        schema = obj.get("schema") if isinstance(obj, dict) else None
        entries.append((schema if isinstance(schema, str) else None, obj, line, col, idx))
        idx += 1
        i = end
    return entries, problems, readable


def checked_operators(repo) -> set:
    """Names of the operators whose repository-level files (ci.yaml, catalogs) are reported
    on: every operator when everything is checked, else those with a checked bundle or a
    changed file under operators/<name>/ or catalogs/*/<name>/."""
    if not repo.checked:
        return set(repo.operators)
    checked = set(repo.checked)
    from .layout import operators_touched

    # the refs: ``repo.bundles`` is empty while the run streams its bundles
    out = {b.operator for b in repo.bundle_refs if b.operator and b.rel in checked}
    return out | (operators_touched(repo.changed_files or []) & set(repo.operators))
