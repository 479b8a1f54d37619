"""Derive a bundle's VersionInfo from the model: the label, maxOpenShiftVersion
declarations, minKubeVersion, the releases it is published to and installable on.

Runs once per bundle before the rules, after publication is decided
(``publication.decide``, ``engine.check_bundle``); rules read ``bundle.versions`` and never
recompute it.
"""
from __future__ import annotations

from typing import Optional

from .context import Context
from .model import Bundle
from .nodes import Mapping, Scalar
from .versions import LABEL_KEY, label_releases, max_declarations, norm, parse_label, parse_min_kube


def analyse(bundle: Bundle, ctx: Context) -> None:
    vi = bundle.versions
    table = ctx.ocp
    node = bundle.annotation(LABEL_KEY)
    if node is None and bundle.annotations is not None and LABEL_KEY in bundle.annotations:
        node = bundle.annotations.get(LABEL_KEY)  # present but not a scalar
    if node is not None:
        vi.label_node = node
        if isinstance(node, Scalar):
            vi.label = node.raw if node.value is not None else ""
            vi.label_parsed = parse_label(node.value, node.raw if node.style is None else None)
        else:
            vi.label = ""
            vi.label_parsed = parse_label(None)

    csv = bundle.csv
    vi.max_ocp_decls = max_declarations(csv, bundle.properties_file)
    # 4.23 and 5.0 are one release (OLM's normalizeOCPVersion): the highest of them as written
    valid = [d.version for d in vi.max_ocp_decls if d.version is not None and d.error is None]
    valid = [max(valid, key=lambda v: (norm(v), v))] if valid else []
    vi.max_ocp = "%d.%d" % max(valid) if valid else None

    mk_node = None
    spec = csv.spec() if csv is not None else None
    if spec is not None and _min_kube_key(spec) is not None:
        mk_node = spec.get(_min_kube_key(spec))
    elif vi.declared_min_kube is not None:
        mk_node = vi.declared_min_kube
    min_kube = None
    if isinstance(mk_node, Scalar) and mk_node.value not in (None, ""):
        vi.min_kube_node = mk_node
        min_kube, _err = parse_min_kube(mk_node.value, mk_node.raw)
        if min_kube is not None:
            vi.min_kube = "%d.%d" % min_kube

    published: list  # of versions.Release (the lookups below keep the releases found)
    if ctx.target:
        published = [table.get(v) for v in ctx.target if table.get(v) is not None]
        vi.explicit_target = True
        vi.publication_source = "target"
    elif vi.catalog_ocp:
        published = [table.get(v) for v in vi.catalog_ocp if table.get(v) is not None]
        vi.publication_source = "catalogs"
    elif vi.mapped_ocp and any(table.get(v) is not None for v in vi.mapped_ocp):
        # an FBC operator's bundle no catalog lists yet: its ci.yaml catalog_mapping names the
        # catalogs its templates render, where it will be published (versions.md)
        published = [table.get(v) for v in vi.mapped_ocp if table.get(v) is not None]
        vi.publication_source = "catalog-mapping"
    elif vi.fbc_unlisted:
        # an FBC operator's older bundle that no catalog lists: published nowhere, whatever its label
        published = []
        vi.publication_source = "unlisted"
    elif vi.label_parsed is not None and vi.label_parsed.ok:
        # only releases with their own bundle catalog (4.6+) are published to; a label that
        # names older releases only keeps them (nothing newer to evaluate it against)
        named = label_releases(vi.label_parsed, table)
        published = table.with_catalog(named) or named
        vi.publication_source = "label"
    else:
        published = table.catalog_releases
        vi.publication_source = "all-known"
    vi.no_constraints = vi.label_parsed is None and not vi.max_ocp_decls and vi.min_kube_node is None
    vi.ocp_versions = [r.ocp for r in published]
    # installable: where OLM installs it, i.e. every published release whose Kubernetes meets
    # minKubeVersion. maxOpenShiftVersion is no install barrier: OLM reads it only for the
    # cluster's Upgradeable condition (operator-lifecycle-manager, pkg/controller/operators/
    # openshift/helpers.go incompatibleOperators), so a bundle published above its max installs there
    vi.ocp_installable = [r.ocp for r in published if min_kube is None or r.kube_key >= min_kube]


def _min_kube_key(spec: Mapping) -> Optional[str]:
    """The key OLM reads spec.minKubeVersion from: OLM decodes the CSV with Go's encoding/json
    (``V1alpha1CSVFromBundle`` in pkg/controller/registry/resolver/steps.go), which matches field
    names case-insensitively, preferring the exact name: ``MinKubeVersion`` is obeyed (its
    spelling is csv-unknown-field's warning)."""
    if "minKubeVersion" in spec:
        return "minKubeVersion"
    for k in spec.keys():
        if isinstance(k, str) and k.lower() == "minkubeversion":
            return k
    return None
