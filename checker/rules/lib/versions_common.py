"""What the version rules (``checker/rules/version/``) share: where their refusals are
written, the releases named in a message, and the notes several of them add (publication
decided by file-based catalogs, an uncertain catalog_mapping, maxOpenShiftVersion being no
install barrier). No rules here."""
from __future__ import annotations

from typing import Any, Iterable, Optional

from ...model import Bundle, SourceFile, VersionInfo
from ...nodes import Scalar
from ...versions import LABEL_KEY, MaxDecl, OcpTable, Release, norm, vkey
from ...versions import release_ranges as _ranges

# Where what refuses these findings is written (the `refused_by` sources).
OLM_MAX = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/openshift/helpers.go"
OLM_REQUIREMENTS = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/olm/requirements.go"
CI_BUNDLE_CHECKS = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/community/bundle.py"
CI_INDICES = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/__init__.py"
OCP_VERSIONS_DOC = ("https://redhat-connect.gitbook.io/certified-operator-guide/ocp-deployment/operator-metadata/"
                    "bundle-directory/managing-openshift-versions")
K8S_DEPRECATION_GUIDE = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"
API_REMOVED_APIS = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/removed_apis.go"
K8S_WEBHOOK_VALIDATION = "https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/admissionregistration/validation/validation.go"

CATALOGS_DECIDE = ("catalogs", "catalog-mapping", "unlisted")


def rels(releases: Iterable[Any]) -> str:
    """Releases (Release objects or "4.16" strings) as a message names them: '4.12-4.14, 4.16'."""
    return _ranges([getattr(r, "ocp", r) for r in releases])


def fbc_operator(bundle: Bundle) -> bool:
    """The bundle belongs to an operator whose file-based catalogs decide publication
    (ci.yaml ``fbc.enabled: true``): its label does not, and catalog CI skips label checks."""
    return bundle.versions.fbc_operator or bundle.versions.publication_source in CATALOGS_DECIDE


def uncertain(bundle: Bundle) -> bool:
    """The releases come from a ci.yaml catalog_mapping whose templates target different
    catalogs, and no catalog lists the bundle yet (which one will is not known)."""
    return bundle.versions.publication_source == "catalog-mapping" and bundle.versions.mapping_uncertain


def uncertain_note(bundle: Bundle) -> str:
    return (" (if the catalog template that will list this bundle targets those releases: its ci.yaml maps several "
            "templates to different catalogs, and no catalog lists the bundle yet)") if uncertain(bundle) else ""


def installable_releases(bundle: Bundle, table: OcpTable) -> list[Release]:
    """The releases (``table`` entries) the bundle installs on, else those it is published to."""
    vi = bundle.versions
    return [r for r in (table.get(v) for v in (vi.ocp_installable or vi.ocp_versions)) if r is not None]


def max_note(vi: VersionInfo, releases: Iterable[Any]) -> str:
    """Why a maxOpenShiftVersion below these releases does not help: it is no install barrier."""
    if vi.max_ocp is None or vi.explicit_target or not any(vkey(getattr(r, "ocp", r)) > vkey(vi.max_ocp) for r in releases):
        return ""
    return (f"; maxOpenShiftVersion {vi.max_ocp} does not keep it from those catalogs: OLM reads it only to block cluster "
            "upgrades, not installs")


def range_note(vi: VersionInfo) -> str:
    """Where the releases of a finding come from, as a clause after them."""
    if vi.publication_source == "all-known":
        return " (the bundle declares no range, so it is published to every release)"
    if vi.publication_source == "target":
        return ""
    if vi.publication_source == "catalogs":
        return ", whose catalogs list it"
    if vi.publication_source == "catalog-mapping":
        return ", whose catalogs its ci.yaml catalog_mapping renders"
    return f", which {LABEL_KEY} '{vi.label}' publishes it to"


def max_first_decl(vi: VersionInfo) -> MaxDecl:
    """The maxOpenShiftVersion declaration whose value OLM uses (the first valid one naming
    ``vi.max_ocp``, else the first), where findings about the limit are placed (for a bundle
    with a maxOpenShiftVersion: it comes from a declaration)."""
    assert vi.max_ocp is not None and vi.max_ocp_decls
    mx = vkey(vi.max_ocp)
    decls: list[MaxDecl] = vi.max_ocp_decls
    return next((d for d in decls if d.version is not None and norm(d.version) == mx), decls[0])


def min_kube_place(bundle: Bundle) -> tuple[Optional[SourceFile], Optional[Scalar]]:
    """(file, node) of the minKubeVersion OLM reads; (None, None) without one."""
    vi = bundle.versions
    csv = bundle.csv
    node = vi.min_kube_node
    file = csv.file if csv is not None and node is not None and vi.declared_min_kube is not node else vi.declared_min_kube_file
    if node is None or file is None:
        return None, None
    return file, node
