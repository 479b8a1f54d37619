"""Publication: which OpenShift releases list a bundle, decided before any rule runs.

A stage of the core (``engine.check_bundle`` runs it first, then ``versions_analysis``):
from the bundle and its operator's context (``engine.OperatorContext``: ci.yaml, file-based
catalogs) it fills the typed publication fields of ``bundle.versions`` (``VersionInfo``):

* ``fbc_operator``: the operator's ci.yaml sets ``fbc.enabled: true``, so its file-based
  catalogs, not the label, decide where its bundles are published (versions.md);
* ``catalog_ocp``: the releases whose catalogs list the bundle's CSV name;
* ``mapped_ocp`` / ``mapping_uncertain``: for a bundle no catalog lists yet (a new bundle),
  the releases its ``fbc.catalog_mapping`` renders catalogs for;
* ``fbc_unlisted``: an older bundle no catalog lists (left out or pruned): published nowhere;
* ``declared_min_kube`` / ``declared_min_kube_file``: a plain bundle's ``metadata/olm.yaml``
  ``minKubeVersion``, which stands for the CSV's.

``versions_analysis.analyse`` then settles ``ocp_versions`` from them (target, catalogs,
catalog mapping, label, every release). Pure: reads the model, no I/O.
"""
from __future__ import annotations

import os
from typing import Optional

from .catalogs import ci_data, release_of
from .model import K8S_V1, PLAIN_V0, Bundle
from .nodes import Mapping, Scalar, Sequence
from .versions import LABEL_KEY, label_releases, parse_label, vkey

OLM_YAML = ("olm.yaml", "olm.yml")


def olm_yaml(bundle: Bundle):
    """A plain bundle's ``metadata/olm.yaml`` (its CSV's stand-in), or None."""
    for sf in bundle.metadata_files:
        if os.path.basename(sf.path) in OLM_YAML:
            return sf
    return None


def is_plain(bundle: Bundle) -> bool:
    """A plain Kubernetes bundle (``k8s+v1``; ``plain+v0`` in older proposals), declared or
    recognised by its olm.yaml and the absence of a CSV."""
    if bundle.mediatype in (K8S_V1, PLAIN_V0):
        return True
    return bundle.mediatype is None and olm_yaml(bundle) is not None and not bundle.csvs


def decide(bundle: Bundle, operator, ctx) -> None:
    """Fill ``bundle.versions``' publication fields (see the module) from ``operator``
    (``engine.OperatorContext`` or None: a bundle outside ``operators/<name>/``)."""
    vi = bundle.versions
    if is_plain(bundle):
        sf = olm_yaml(bundle)
        doc = sf.documents[0] if sf is not None and sf.documents else None
        if isinstance(doc, Mapping) and "minKubeVersion" in doc:
            vi.declared_min_kube = doc.get("minKubeVersion")
            vi.declared_min_kube_file = sf
    oc = operator.catalogs if operator is not None else None
    if oc is None or not oc.fbc_enabled:
        return
    vi.fbc_operator = True
    name = bundle.csv_name
    if name:
        listed = [ocp for ocp, cat in oc.catalogs.items() if cat.known and name in cat.bundle_names]
        if listed:
            vi.catalog_ocp = sorted(listed, key=vkey)
        elif _unlisted(bundle, oc):
            vi.fbc_unlisted = True
            return
    _mapping(bundle, operator, oc, ctx)


def _unlisted(bundle: Bundle, oc) -> bool:
    """An FBC operator's bundle that no catalog lists and that is not waiting to be added (it is
    not above every version they list): it was left out or pruned, so it is published nowhere
    (versions.md: "a bundle is published exactly to the catalogs that list it"). Decided on the
    catalogs that were read, when one of them lists a bundle: a mapped catalog missing on disk
    (a partial checkout) is not taken to list it, as nothing says where it would be."""
    if not any(c.known and c.bundle_names for c in oc.catalogs.values()):
        return False
    newest = _newest_listed(oc)
    if newest is None or newest is _NOTHING_LISTED:
        return False  # cannot tell whether it is a new bundle
    mine = _version_key(bundle)
    return mine is not None and mine <= newest


def _version_key(bundle: Bundle):
    """The bundle's spec.version as OLM orders it (blang/semver, tolerant), or None."""
    from .upstream.blangsemver import SemverError, parse_tolerant

    spec = bundle.csv.spec() if bundle.csv is not None else None
    ver = spec.str("version") if spec is not None else None
    try:
        return parse_tolerant(ver).key() if ver else None
    except (SemverError, ValueError, TypeError):
        return None


def _mapping(bundle: Bundle, operator, oc, ctx) -> None:
    """The releases the ci.yaml ``fbc.catalog_mapping`` renders catalogs for, which
    versions_analysis uses when no catalog lists the bundle yet (a new bundle). When the
    mapping has several templates for different catalogs, which template will list the bundle
    is not known here: the bundle's label (when it names some of those releases) narrows
    them, and otherwise the releases are marked uncertain (``mapping_uncertain``)."""
    doc = ci_data(operator.operator) if operator.operator is not None else None
    fb = doc.get("fbc") if doc is not None else None
    cm = fb.get("catalog_mapping") if isinstance(fb, Mapping) else None
    sets = []  # the releases of each template
    if isinstance(cm, Sequence):
        for item in cm:
            names = item.get("catalog_names") if isinstance(item, Mapping) else None
            rels = {release_of(n.value) for n in names if isinstance(n, Scalar) and isinstance(n.value, str)} \
                if isinstance(names, Sequence) else set()
            rels.discard(None)
            if rels and rels not in sets:
                sets.append(rels)
    mapped = sorted(set().union(*sets), key=vkey) if sets else []
    if not mapped or not _pending(bundle, oc):
        return
    if len(sets) > 1:
        lab = bundle.annotation(LABEL_KEY)
        lr = parse_label(lab.value) if lab is not None else None
        named = {r.ocp for r in label_releases(lr, ctx.ocp)} if lr is not None and lr.ok else set()
        narrowed = [r for r in mapped if r in named]
        if narrowed:
            mapped = narrowed
        else:
            bundle.versions.mapping_uncertain = True
    bundle.versions.mapped_ocp = mapped


def _pending(bundle: Bundle, oc) -> bool:
    """A bundle no catalog lists is waiting to be added (the catalog_mapping says where) when
    its catalogs list nothing yet, or when its version is above every version they list. An
    older bundle missing from them was left out or pruned: the mapping says nothing about it."""
    newest = _newest_listed(oc)
    if newest is _NOTHING_LISTED:
        return True
    if newest is None:
        return False
    mine = _version_key(bundle)
    return mine is not None and mine > newest


_NOTHING_LISTED = ("nothing listed",)


def _newest_listed(oc):
    """The key of the newest version the operator's catalogs list, ``_NOTHING_LISTED``, or
    None when it cannot be told (a listed bundle of unknown or unparsable version). Computed
    once per operator (``oc.derived``): every bundle of an operator asks the same."""
    got = oc.derived.get("newest_listed", oc)
    if got is not oc:
        return got
    from .upstream.blangsemver import SemverError, parse_tolerant

    listed, got = [], None
    for cat in oc.catalogs.values():
        if not cat.known:
            continue
        for b in cat.blobs:
            if b.schema == "olm.bundle":
                v = _blob_version(b)
                if v is not None:
                    listed.append(v)
                elif b.str("name"):
                    listed = None  # a listed bundle of unknown version: cannot tell
                    break
        if listed is None:
            break
    if listed is not None:
        try:
            got = max(parse_tolerant(v).key() for v in listed) if listed else _NOTHING_LISTED
        except (SemverError, ValueError, TypeError):
            got = None
    oc.derived["newest_listed"] = got
    return got


def _blob_version(blob) -> Optional[str]:
    """The version of an olm.bundle blob's olm.package property (YAML nodes or JSON)."""
    props = blob.get("properties")
    items = list(props) if isinstance(props, (Sequence, list)) else []
    for p in items:
        if isinstance(p, Mapping) and p.str("type") == "olm.package":
            val = p.get("value")
            return val.str("version") if isinstance(val, Mapping) else None
        if isinstance(p, dict) and p.get("type") == "olm.package":
            val = p.get("value")
            v = val.get("version") if isinstance(val, dict) else None
            return v if isinstance(v, str) else None
    return None
