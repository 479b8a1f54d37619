"""The model rules read: files with positioned documents, manifests, bundles, repositories.

Built by ``checker.load``; read (never changed, never re-read from disk) by rules.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from .nodes import Mapping, Node, Scalar

REGISTRY_V1 = "registry+v1"
PLAIN_V0 = "plain+v0"  # spelled in older proposals
K8S_V1 = "k8s+v1"


@dataclass
class SourceFile:
    """One file of the checked tree as read from disk."""

    path: str  # absolute path on disk
    rel: str  # display path (repository-relative where possible)
    text: Optional[str] = None  # decoded text (None when refused)
    documents: list = field(default_factory=list)  # root nodes, None for empty documents
    problems: list = field(default_factory=list)  # yamlload.Problem
    size: int = 0
    # the file's bytes, kept only when they could not be decoded (``content`` rebuilds them
    # from the text otherwise: a bundle's files are not held twice)
    raw: Optional[bytes] = None
    bom: bool = False  # the file started with a UTF-8 byte order mark (dropped from ``text``)
    # SHA-256 of the bytes read (set by the loader for every file it read whole): the parse
    # memo, the result cache and bundle-size's compressed sizes are keyed by content
    digest: Optional[bytes] = None

    def content(self) -> Optional[bytes]:
        """The file's bytes as on disk (for bundle-size), None when it was not read."""
        if self.raw is not None:
            return self.raw
        if self.text is None:
            return None
        data = self.text.encode("utf-8")
        return b"\xef\xbb\xbf" + data if self.bom else data

    @property
    def readable(self) -> bool:
        """True when the whole file parsed (rules may trust 'absent' means absent)."""
        return self.text is not None and not any(p.rule in ("yaml-syntax", "yaml-limits") and getattr(p, "fatal", True) for p in self.problems)

    def line_text(self, line: int) -> str:
        if self.text is None or line < 1:
            return ""
        lines = self._lines()
        return lines[line - 1] if line <= len(lines) else ""

    def _lines(self) -> list:
        cached = getattr(self, "_line_cache", None)
        if cached is None:
            cached = self.text.split("\n") if self.text is not None else []
            object.__setattr__(self, "_line_cache", cached)
        return cached


@dataclass
class Manifest:
    """One Kubernetes object: a document of a manifest file."""

    file: SourceFile
    index: int  # document index in the file
    root: Node  # usually a Mapping; anything else is reported by manifest-invalid

    @property
    def api_version(self) -> Optional[str]:
        return self.root.str("apiVersion") if isinstance(self.root, Mapping) else None

    @property
    def kind(self) -> Optional[str]:
        return self.root.str("kind") if isinstance(self.root, Mapping) else None

    @property
    def metadata(self) -> Optional[Mapping]:
        m = self.root.get("metadata") if isinstance(self.root, Mapping) else None
        return m if isinstance(m, Mapping) else None

    @property
    def name(self) -> Optional[str]:
        m = self.metadata
        return m.str("name") if m is not None else None

    @property
    def group(self) -> str:
        av = self.api_version or ""
        return av.split("/", 1)[0] if "/" in av else ""

    @property
    def version(self) -> str:
        av = self.api_version or ""
        return av.split("/", 1)[1] if "/" in av else av

    def annotations(self) -> Optional[Mapping]:
        m = self.metadata
        a = m.get("annotations") if m is not None else None
        return a if isinstance(a, Mapping) else None

    def annotation(self, key: str) -> Optional[Scalar]:
        a = self.annotations()
        v = a.get(key) if a is not None else None
        return v if isinstance(v, Scalar) else None

    def spec(self) -> Optional[Mapping]:
        s = self.root.get("spec") if isinstance(self.root, Mapping) else None
        return s if isinstance(s, Mapping) else None


@dataclass
class DockerLabel:
    key: str
    value: str
    line: int
    column: int


@dataclass
class Dockerfile:
    file: SourceFile
    labels: dict = field(default_factory=dict)  # key -> DockerLabel (last wins, as docker does)
    problems: list = field(default_factory=list)


@dataclass
class VersionInfo:
    """What a bundle declares about the OpenShift/Kubernetes releases it targets, and what
    olm-check derived from it (filled by ``checker.versions.analyse``)."""

    label: Optional[str] = None  # com.redhat.openshift.versions as written (annotations.yaml)
    label_node: Optional[Node] = None
    label_parsed: Any = None  # versions.LabelRange
    max_ocp: Optional[str] = None  # normalised "4.8"
    max_ocp_decls: list = field(default_factory=list)  # versions.MaxDecl
    min_kube: Optional[str] = None
    min_kube_node: Optional[Scalar] = None
    ocp_versions: list = field(default_factory=list)  # releases whose catalogs include it
    ocp_installable: list = field(default_factory=list)
    explicit_target: bool = False  # --ocp given
    no_constraints: bool = False
    publication_source: str = "label"  # label | catalogs | catalog-mapping | unlisted | all-known | target
    # publication, decided before any rule runs (``checker.publication``)
    fbc_operator: bool = False  # the operator's file-based catalogs decide (ci.yaml fbc.enabled: true)
    catalog_ocp: list = field(default_factory=list)  # releases whose catalogs list the bundle's CSV name
    mapped_ocp: list = field(default_factory=list)  # ci.yaml catalog_mapping releases of a bundle no catalog lists yet
    mapping_uncertain: bool = False  # several templates map to different catalogs; the label did not tell which
    fbc_unlisted: bool = False  # an FBC operator's older bundle no catalog lists: published nowhere
    # a plain bundle's metadata/olm.yaml minKubeVersion (the CSV's stand-in) and that file
    declared_min_kube: Optional[Node] = None
    declared_min_kube_file: Optional[SourceFile] = None


@dataclass
class Bundle:
    path: str  # absolute directory
    rel: str  # display path
    mediatype: Optional[str] = None
    annotations_file: Optional[SourceFile] = None
    annotations: Optional[Mapping] = None  # the `annotations:` mapping of annotations.yaml
    dockerfile: Optional[Dockerfile] = None
    properties_file: Optional[SourceFile] = None  # metadata/properties.yaml
    release_config: Optional[SourceFile] = None  # release-config.yaml beside manifests/ (FBC operators' release instructions)
    files: list = field(default_factory=list)  # every SourceFile read for this bundle
    manifests: list = field(default_factory=list)  # Manifest, from manifests/
    manifest_files: list = field(default_factory=list)  # SourceFile under manifests/
    metadata_files: list = field(default_factory=list)
    layout_problems: list = field(default_factory=list)  # (file rel or dir rel, message, detail)
    hidden_manifests: list = field(default_factory=list)  # display paths of manifests/.* entries (not read)
    refused_dirs: list = field(default_factory=list)  # manifests/, metadata/ linked out of the checked tree (not read)
    annotations_dir: bool = False  # metadata/annotations.yaml is a directory
    has_manifests_dir: bool = False  # manifests/ is a directory (or a link to one) in the bundle directory
    has_metadata_dir: bool = False  # metadata/ likewise
    operator: Optional[str] = None  # operators/<operator>/<version> in a catalog repository
    version_dir: Optional[str] = None
    versions: VersionInfo = field(default_factory=VersionInfo)
    # {display path of a bundle directory (itself, manifests/, metadata/): the file in it an
    # editor opens, relative to it} (``load._dir_files``): where a finding about it is shown
    dir_files: dict = field(default_factory=dict)
    # the manifests' CSVs and CRDs, kept while the manifest list is the same (rules ask for them
    # thousands of times per bundle): (manifests, their count, the selection)
    _csvs_memo: Optional[tuple] = field(default=None, repr=False, compare=False)
    _crds_memo: Optional[tuple] = field(default=None, repr=False, compare=False)

    def sub(self, *parts: str) -> str:
        """Display path of something inside the bundle directory."""
        import posixpath

        return posixpath.normpath(posixpath.join(self.rel, *parts))

    @property
    def csvs(self) -> list:
        # cached: rules ask for the CSV thousands of times per bundle; recomputed only when
        # the manifest list itself changes (loaders build it before any rule runs)
        cache = self._csvs_memo
        if cache is None or cache[0] is not self.manifests or cache[1] != len(self.manifests):
            cache = (self.manifests, len(self.manifests), [m for m in self.manifests if m.kind == "ClusterServiceVersion"])
            self._csvs_memo = cache
        return cache[2]

    @property
    def csv(self) -> Optional[Manifest]:
        c = self.csvs
        return c[0] if len(c) == 1 else None

    @property
    def crds(self) -> list:
        # cached as csvs is (rules ask for them about 40 times per bundle)
        cache = self._crds_memo
        if cache is None or cache[0] is not self.manifests or cache[1] != len(self.manifests):
            cache = (self.manifests, len(self.manifests), [m for m in self.manifests if m.kind == "CustomResourceDefinition"])
            self._crds_memo = cache
        return cache[2]

    def annotation(self, key: str) -> Optional[Scalar]:
        v = self.annotations.get(key) if self.annotations is not None else None
        return v if isinstance(v, Scalar) else None

    @property
    def package(self) -> Optional[str]:
        v = self.annotation("operators.operatorframework.io.bundle.package.v1")
        return v.value if v is not None and isinstance(v.value, str) else None

    @property
    def csv_name(self) -> Optional[str]:
        c = self.csv
        return c.name if c is not None else None

    @property
    def readable(self) -> bool:
        return all(f.readable for f in self.manifest_files)


@dataclass
class BundleRef:
    """A bundle directory found but not loaded yet (``discover.plan``); the engine loads it
    when it checks it (``discover.load_ref``), one at a time."""

    path: str  # absolute directory
    rel: str  # display path
    operator: Optional[str] = None  # operators/<operator>/<version> in a catalog repository
    version_dir: Optional[str] = None

    @property
    def operator_dir(self) -> Optional[str]:
        """The directory of the bundle's operator (``operators/<name>/``, absolute), None
        outside one: what tells apart two operators of the same name in two catalog trees
        of one run (the key of ``Repository.operators``)."""
        return os.path.dirname(self.path) if self.operator is not None else None


@dataclass
class Operator:
    """operators/<name>/ in a catalog repository."""

    name: str
    path: str
    rel: str
    bundles: list = field(default_factory=list)
    ci_file: Optional[SourceFile] = None


@dataclass
class OperatorContext:
    """What a bundle of ``operators/<name>/`` is checked with, the same however the bundle
    was named, prepared before any of its rules run (``discover.operator_context``): the
    operator (its ci.yaml), its file-based catalogs, and every bundle's light facts
    (``BundleFacts`` from ``metadata/annotations.yaml`` alone: package, channels, default
    channel, label, mediatype; ``facts.light_facts``), the bundle being checked included.
    Bundle rules read it as ``ctx.operator``; the operator's repository rules run on it with
    every bundle's full facts (``engine.check_operator``)."""

    name: str
    operator: Optional[Operator] = None
    refs: list = field(default_factory=list)  # BundleRef of every bundle of the operator in the run
    siblings: list = field(default_factory=list)  # light BundleFacts, in ``refs`` order
    catalogs: Any = None  # catalogs.OperatorCatalogs


@dataclass
class Repository:
    """What was checked: its root, bundles, loose manifests, catalog-repository parts."""

    root: str
    bundles: list = field(default_factory=list)  # every bundle loaded (checked or context); empty while streaming
    bundle_refs: list = field(default_factory=list)  # BundleRef of every bundle found (checked or context)
    checked: list = field(default_factory=list)  # bundle rel paths to report on (empty: all); the rest is their operators' context
    # the planned repository (``discover.plan``): operator directory (``Operator.path``,
    # ``BundleRef.operator_dir``) -> Operator, as two catalog trees of one run may each hold an
    # operator of the same name; a slice rules read (``engine.operator_slice``,
    # ``engine.global_slice``): operator name -> Operator
    operators: dict = field(default_factory=dict)
    catalog_sources: list = field(default_factory=list)  # Manifest
    loose_files: list = field(default_factory=list)  # SourceFile outside bundles that were read
    catalogs: dict = field(default_factory=dict)  # "4.16" -> {operator: catalogs.FbcCatalog} (file-based catalogs)
    problems: list = field(default_factory=list)  # Findings made while finding things
    is_catalog_repo: bool = False
    changed_files: Optional[list] = None  # for --changed-since / PR mode (display paths)
    changes: Optional[list] = None  # FileChange list of a PR / --changed-since (None: not known)
    facts: list = field(default_factory=list)  # BundleFacts of every loaded bundle (repo rules read these)
    fbc: dict = field(default_factory=dict)  # operator name -> catalogs.OperatorCatalogs (file-based catalogs, ci.yaml fbc)
    change_dirs: dict = field(default_factory=dict)  # directory of a change list -> its state (``changes.dir_facts``)
    reader: Any = None  # load.Reader of the run (the checked tree, display paths, limits)
    cache_stats: Optional[dict] = None  # the runner's result cache this run: {"hits": n, "misses": n}


@dataclass
class FileChange:
    """One changed file of a pull request or of ``--changed-since``, as git or GitHub lists it.

    ``status``: added | modified | removed | renamed (``previous_path`` set; counted as a
    removal of ``previous_path`` plus an addition of ``path``). Paths are repository-relative.
    """

    status: str
    path: str
    previous_path: Optional[str] = None


def split_renames(changes: Iterable) -> list:
    """[(status, path)] with each rename as ("removed", old) + ("added", new)."""
    out = []
    for c in changes:
        if c.status == "renamed" and c.previous_path:
            out.append(("removed", c.previous_path))
            out.append(("added", c.path))
        else:
            out.append((c.status, c.path))
    return out


@dataclass
class Pos:
    """Where something is: display path, 1-based line and column."""

    path: str
    line: int = 1
    column: int = 1


@dataclass
class BundleFacts:
    """The light, picklable summary of a bundle that cross-bundle (repo-scope) rules read:
    upgrade graph, publication, CRD versions. Computed once per bundle after its own rules
    ran (``facts.bundle_facts``), so a catalog can be checked bundle by bundle in worker
    processes without keeping every bundle's manifests in memory."""

    rel: str
    checked: bool = True  # reported on (False: loaded only as context)
    operator: Optional[str] = None
    version_dir: Optional[str] = None
    package: Optional[str] = None
    mediatype: Optional[str] = None
    csv_name: Optional[str] = None
    csv_pos: Optional[Pos] = None
    version: Optional[str] = None  # spec.version
    replaces: Optional[str] = None
    replaces_pos: Optional[Pos] = None
    skips: list = field(default_factory=list)  # [(name, Pos)]
    skip_range: Optional[str] = None
    skip_range_pos: Optional[Pos] = None
    channels: list = field(default_factory=list)
    default_channel: Optional[str] = None
    annotations_pos: Optional[Pos] = None
    label: Optional[str] = None
    label_pos: Optional[Pos] = None
    ocp_versions: list = field(default_factory=list)
    ocp_installable: list = field(default_factory=list)
    max_ocp: Optional[str] = None
    # CRDs in the bundle: name -> {"served": [versions], "storage": [versions], "versions": [every listed version], "pos": Pos}
    crds: dict = field(default_factory=dict)
    owned_crds: list = field(default_factory=list)  # [(name, version, kind)]
    package_pos: Optional[Pos] = None  # the package annotation's value
    label_range: Optional[tuple] = None  # valid label: (lower, upper or None) as (major, minor) tuples
    default_channel_pos: Optional[Pos] = None  # the default channel annotation's value
    # its operator's file-based catalogs decide publication (ci.yaml fbc.enabled): the catalog
    # pipelines skip their @skip_fbc checks for it (``checker.gates``)
    fbc: bool = False
    dir_files: dict = field(default_factory=dict)  # Bundle.dir_files: where a finding about a directory is shown
