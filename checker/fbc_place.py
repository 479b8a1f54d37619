"""Where the catalog build puts a new bundle of a file-based-catalog operator, before release.

A pull request adding a bundle to an FBC operator does not touch ``catalogs/``: after the
merge the release pipeline (operator-pipelines ``add_bundle_to_fbc``) reads the bundle's
``release-config.yaml``, adds it to the catalog templates it names, and renders each template
into the catalogs ``ci.yaml`` ``fbc.catalog_mapping`` maps it to. This module does the same
on the checked tree, for the upgrade graph of the pull request:

* ``olm.template.basic``: an entry ``{name, replaces, skips, skipRange}`` (from
  release-config.yaml) appended to each named channel of the release's catalog (a channel
  the catalog does not have yet is created);
* ``olm.semver``: the bundle added to the template's named archetype (Candidate, Fast,
  Stable), and the channels rendered as opm renders a semver template
  (operator-registry ``alpha/template/semver``: major and/or minor channels per archetype;
  the last bundle of each Y-stream skips the Y-stream's other bundles, and replaces and skips
  the previous Y-stream's last). That is the edge set community-operators-prod's catalogs
  hold (catalogs/v4.22/kubernaut-operator: 1.3.4 skips 1.3.2 and 1.3.3, 1.4.1 replaces and
  skips 1.3.4); operator-registry's newest linkChannels accumulates skips across Y-streams
  instead, and its 2025 one wrote no skips across them: the pipeline's opm is neither.

The result is an ``FbcCatalog`` whose blobs are plain dicts, drawn by
``upgrade_graph.build_from_catalog`` like any catalog. Bad input is normal input: a
release-config.yaml or template that cannot be read gives no placement and a note.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

import yaml

from .upstream.blangsemver import SemverError, parse_tolerant
from .catalogs import FbcBlob, FbcCatalog, ci_data
from .nodes import Mapping, Scalar, Sequence
from .versions import vkey

MAX_FILE = 4 << 20
ARCHETYPES = (("Candidate", "candidate"), ("Fast", "fast"), ("Stable", "stable"))  # by priority, as opm
BASIC, SEMVER = "olm.template.basic", "olm.semver"


@dataclass
class Placement:
    """A new bundle placed into one catalog template: the catalog it renders to (drawn), the
    releases the template goes to, and what was read."""

    template: str
    kind: str
    releases: list
    channels: list
    catalog: Optional[FbcCatalog] = None
    notes: list = field(default_factory=list)


def _read_yaml(path: str):
    try:
        if os.path.getsize(path) > MAX_FILE:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return yaml.safe_load(fh)
    except (OSError, yaml.YAMLError, RecursionError, ValueError):
        return None


def _mapping(op) -> dict:
    """ci.yaml ``fbc.catalog_mapping``: template name -> (type, [release dirs])."""
    ci = ci_data(op)
    fbc = ci.get("fbc") if ci is not None else None
    cm = fbc.get("catalog_mapping") if isinstance(fbc, Mapping) else None
    out = {}
    for item in cm if isinstance(cm, Sequence) else []:
        if not isinstance(item, Mapping):
            continue
        name, kind, names = item.get("template_name"), item.get("type"), item.get("catalog_names")
        if not (isinstance(name, Scalar) and isinstance(name.value, str)):
            continue
        rels = [str(n.value) for n in names if isinstance(n, Scalar) and n.value is not None] \
            if isinstance(names, Sequence) else []
        out[name.value] = (kind.value if isinstance(kind, Scalar) else None, rels)
    return out


def _plain_blobs(cat: FbcCatalog) -> list:
    from .upgrade_graph import _plain

    out = []
    for b in cat.blobs:
        root = b.root if isinstance(b.root, dict) else _plain(b.root)
        if isinstance(root, dict):
            out.append(root)
    return out


def _catalog_of(name: str, release_dir: str, blobs: list, rel: str) -> FbcCatalog:
    cat = FbcCatalog(release_dir[1:] if release_dir.startswith("v") else release_dir, release_dir, name, rel=rel)
    cat.blobs = [FbcBlob(b.get("schema") if isinstance(b.get("schema"), str) else None, b, None, i)
                 for i, b in enumerate(blobs)]
    cat.bundle_names = {b["name"] for b in blobs if b.get("schema") == "olm.bundle" and isinstance(b.get("name"), str)}
    return cat


def _bundle_blob(operator: str, csv: str, version: str, image: str = "") -> dict:
    return {"schema": "olm.bundle", "name": csv, "package": operator, "image": image,
            "properties": [{"type": "olm.package", "value": {"packageName": operator, "version": version}}]}


def _basic(operator: str, base: list, csv: str, version: str, cfg: dict, channels: list) -> list:
    """The basic template's catalog with the new entry in each channel (add_bundle_to_fbc
    ``BasicTemplate.amend``)."""
    entry = {"name": csv}
    for k in ("replaces", "skips", "skipRange"):
        if k in cfg:
            entry[k] = cfg[k]
    out, seen = [], set()
    for b in base:
        if b.get("schema") == "olm.channel" and b.get("name") in channels:
            b = dict(b)
            entries = [e for e in (b.get("entries") or []) if isinstance(e, dict)]
            if entry not in entries:
                entries = entries + [entry]
            b["entries"] = entries
            seen.add(b["name"])
        out.append(b)
    for c in channels:
        if c not in seen:
            out.append({"schema": "olm.channel", "name": c, "package": operator, "entries": [entry]})
    if csv not in {b.get("name") for b in out if b.get("schema") == "olm.bundle"}:
        out.append(_bundle_blob(operator, csv, version))
    return out


def _ver(v):
    try:
        return parse_tolerant(str(v))
    except (SemverError, ValueError, TypeError):
        return None


def semver_channels(operator: str, bundles: dict, major: bool, minor: bool) -> list:
    """opm's semver template rendering: ``bundles`` archetype ("candidate", "fast",
    "stable") -> {CSV name: version text}; the olm.channel blobs (entries with replaces and
    skips), as ``generateChannels`` and ``linkChannels`` make them."""
    channels: dict = {}
    tuples = []
    prio = {a: i for i, (_k, a) in enumerate(ARCHETYPES)}
    kinds = {"minor": 2, "major": 1}
    for _key, arch in ARCHETYPES:
        named = [(n, _ver(v)) for n, v in (bundles.get(arch) or {}).items()]
        named = sorted(((n, v) for n, v in named if v is not None), key=lambda t: (t[1].key(), t[0]))
        for n, v in named:
            keys = {}
            if major:
                keys["major"] = f"{arch}-v{v.major}"
            if minor:
                keys["minor"] = f"{arch}-v{v.major}.{v.minor}"
            for kind, cname in keys.items():
                ch = channels.setdefault(cname, {"schema": "olm.channel", "name": cname, "package": operator,
                                                 "entries": []})
                ch["entries"].append({"name": n})
                tuples.append((arch, kind, cname, n, v, len(ch["entries"]) - 1))
    tuples.sort(key=lambda t: (prio[t[0]], kinds[t[1]], t[4].key()))

    def write(t, replaces, skips):
        e = channels[t[2]]["entries"][t[5]]
        if replaces:
            e["replaces"] = replaces
        s = sorted(skips)
        if s:
            e["skips"] = s

    prev_zmax, cur_skips = "", set()
    for i in range(1, len(tuples)):
        p, c = tuples[i - 1], tuples[i]
        arch_change, kind_change = c[0] != p[0], c[1] != p[1]
        x_change = p[4].major != c[4].major
        y_change = (p[4].major, p[4].minor) != (c[4].major, c[4].minor)
        if arch_change or kind_change or x_change or y_change:
            write(p, prev_zmax, cur_skips)
        if arch_change or kind_change or x_change:
            cur_skips, prev_zmax = set(), ""
        else:
            if y_change:  # (a new Y-stream skips only the previous one's last bundle, which it replaces)
                prev_zmax, cur_skips = p[3], set()
            cur_skips.add(p[3])
    if len(tuples) > 1:
        last, pen = tuples[-1], tuples[-2]
        if last[0] == pen[0] and last[1] == pen[1] and last[4].major == pen[4].major:
            write(last, prev_zmax, cur_skips)
    return [channels[k] for k in sorted(channels)]


def _semver(operator: str, template: dict, base: list, csv: str, version: str, channels: list) -> list:
    """The semver template's catalog with the new bundle in the named archetypes. Template
    bundles are images: their CSV names and versions come from the catalog's olm.bundle
    blobs (by image), else the image's tag as the version."""
    by_image = {}
    for b in base:
        if b.get("schema") == "olm.bundle" and isinstance(b.get("image"), str) and isinstance(b.get("name"), str):
            from .upgrade_graph import _bundle_version

            by_image[b["image"]] = (b["name"], _bundle_version(FbcBlob("olm.bundle", b, None, 0)))
    bundles: dict = {}
    names_versions: dict = {}
    for key, arch in ARCHETYPES:
        sec = template.get(key) if isinstance(template.get(key), dict) else {}
        for item in sec.get("Bundles") or [] if isinstance(sec.get("Bundles") or [], list) else []:
            img = item.get("Image") if isinstance(item, dict) else None
            if not isinstance(img, str):
                continue
            name, ver = by_image.get(img, (None, None))
            tag = img.rsplit(":", 1)[-1] if ":" in img.rsplit("/", 1)[-1] else ""
            if name is None and tag and _ver(tag) is not None and _ver(tag).compare(_ver(version) or _ver(tag)) == 0 \
                    and _ver(version) is not None:
                name, ver = csv, version  # the new bundle, already in the template
            if name is None:
                name, ver = f"{operator}.v{tag}" if tag else img, tag
            bundles.setdefault(arch, {})[name] = ver
            names_versions[name] = ver
        if key in channels or arch in channels:
            bundles.setdefault(arch, {})[csv] = version
            names_versions[csv] = version
    major = template.get("GenerateMajorChannels", True) is not False
    minor = template.get("GenerateMinorChannels", False) is True
    out = [b for b in base if b.get("schema") == "olm.package"]
    out += semver_channels(operator, bundles, major, minor)
    out += [_bundle_blob(operator, n, str(v)) for n, v in sorted(names_versions.items()) if v]
    return out


def _base_catalog(catalogs, releases: list):
    """The catalog on disk of the newest release of ``releases`` (release dirs "v4.18"), and that dir."""
    def ocp(r):
        return r[1:] if r.startswith("v") else r

    for r in sorted(releases, key=lambda r: vkey(ocp(r)), reverse=True):
        cat = catalogs.catalogs.get(ocp(r)) if catalogs is not None else None
        if cat is not None and cat.known:
            return cat, r
    return None, (sorted(releases, key=lambda r: vkey(ocp(r)))[-1] if releases else "v0.0")


def _version_in_name(name: str) -> Optional[str]:
    i = name.find(".v")
    return name[i + 2:] if i >= 0 and _ver(name[i + 2:]) is not None else None


def by_templates(root: str, op, operator: str, csv: str, version: Optional[str], catalogs) -> list:  # noqa: C901
    """Placements from the catalog templates that already hold the new bundle (a pull request
    that edits catalog-templates/ itself, as operators without release-config.yaml do): a
    semver template listing an image whose tag is its version, a basic template with a channel
    entry of its CSV name."""
    nv = _ver(version) if version else None
    out = []
    for name, (kind, releases) in sorted(_mapping(op).items()):
        if kind not in (BASIC, SEMVER):
            continue
        tpl = _read_yaml(os.path.join(root, "operators", operator, "catalog-templates", name))
        if not isinstance(tpl, dict):
            continue
        base_cat, rd = _base_catalog(catalogs, releases)
        base = _plain_blobs(base_cat) if base_cat is not None else []
        blobs = None
        chans: list = []
        if kind == SEMVER and nv is not None:
            for key, _arch in ARCHETYPES:
                sec = tpl.get(key) if isinstance(tpl.get(key), dict) else {}
                for item in sec.get("Bundles") or [] if isinstance(sec.get("Bundles") or [], list) else []:
                    img = item.get("Image") if isinstance(item, dict) else None
                    tag = img.rsplit(":", 1)[-1] if isinstance(img, str) and ":" in img.rsplit("/", 1)[-1] else ""
                    tv = _ver(tag) if tag else None
                    if tv is not None and tv.compare(nv) == 0 and key not in chans:
                        chans.append(key)
            if chans:
                blobs = _semver(operator, tpl, base, csv, version, [])
        elif kind == BASIC:
            entries = [e for e in tpl.get("entries") or [] if isinstance(e, dict)] \
                if isinstance(tpl.get("entries"), list) else []
            for e in entries:
                if e.get("schema") == "olm.channel" and any(isinstance(x, dict) and x.get("name") == csv
                                                            for x in e.get("entries") or []):
                    chans.append(str(e.get("name")))
            if chans:
                known = {}
                from .upgrade_graph import _bundle_version

                for b in base:
                    if b.get("schema") == "olm.bundle" and isinstance(b.get("name"), str):
                        known[b["name"]] = _bundle_version(FbcBlob("olm.bundle", b, None, 0))
                blobs = [e for e in entries if e.get("schema") in ("olm.package", "olm.channel")]
                names = {x.get("name") for e in blobs if e.get("schema") == "olm.channel"
                         for x in e.get("entries") or [] if isinstance(x, dict) and isinstance(x.get("name"), str)}
                for n in sorted(names):
                    v = version if n == csv else (known.get(n) or _version_in_name(n))
                    if v:
                        blobs.append(_bundle_blob(operator, n, v))
        if blobs is None:
            continue
        p = Placement(name, kind, releases, chans)
        p.catalog = _catalog_of(operator, rd, blobs, f"catalog-templates/{name}")
        out.append(p)
    return out


def place(root: str, op, operator: str, bundle_dir: str, csv: str, version: Optional[str], catalogs) -> list:
    """The placements of one new bundle (``bundle_dir`` absolute) by its release-config.yaml:
    one per catalog template it names. ``catalogs``: the operator's ``OperatorCatalogs``."""
    cfg = _read_yaml(os.path.join(bundle_dir, "release-config.yaml"))
    if cfg is None:  # no release-config.yaml: the pull request edits the templates itself
        return by_templates(root, op, operator, csv, version, catalogs)
    templates = cfg.get("catalog_templates") if isinstance(cfg, dict) else None
    if not isinstance(templates, list) or not version:
        return [Placement("", "", [], [], notes=["release-config.yaml names no catalog_templates: not placed"])]
    mapping = _mapping(op)
    out = []
    for t in templates:
        if not isinstance(t, dict) or not isinstance(t.get("template_name"), str):
            continue
        name = t["template_name"]
        chans = [str(c) for c in t.get("channels") or [] if isinstance(c, (str, int, float))] \
            if isinstance(t.get("channels"), list) else []
        kind, releases = mapping.get(name, (None, []))
        p = Placement(name, kind or "", releases, chans)
        if kind not in (BASIC, SEMVER):
            p.notes.append(f"release-config.yaml names {name}, which ci.yaml fbc.catalog_mapping does not map to "
                           "a catalog (or maps with a type olm-check does not render)")
            out.append(p)
            continue
        # the newest release the template goes to whose catalog is on disk (the drawn one)
        base_cat, rd = _base_catalog(catalogs, releases)
        base = _plain_blobs(base_cat) if base_cat is not None else []
        if kind == BASIC:
            blobs = _basic(operator, base, csv, version, t, chans)
        else:
            tpl = _read_yaml(os.path.join(root, "operators", operator, "catalog-templates", name))
            if not isinstance(tpl, dict):
                p.notes.append(f"catalog-templates/{name} cannot be read: not placed")
                out.append(p)
                continue
            blobs = _semver(operator, tpl, base, csv, version, chans)
        p.catalog = _catalog_of(operator, rd, blobs, f"catalog-templates/{name} + release-config.yaml")
        out.append(p)
    return out
