"""Bundle -> BundleFacts (what cross-bundle rules need), computed once per bundle."""
from __future__ import annotations

from typing import Optional

from .model import Bundle, BundleFacts, Pos, SourceFile
from .nodes import Mapping, Node, Scalar, Sequence
from .versions import LABEL_KEY


def _pos(file: SourceFile, node: Optional[Node]) -> Pos:
    return Pos(file.rel, node.line, node.col) if node is not None else Pos(file.rel)


def light_facts(b: Bundle) -> BundleFacts:
    """The facts of a bundle read from ``metadata/annotations.yaml`` alone
    (``load.load_metadata``): package, mediatype, channels, default channel, label. What a
    bundle's rules know of the other bundles of its operator (``OperatorContext.siblings``)."""
    f = BundleFacts(rel=b.rel, checked=False, operator=b.operator, version_dir=b.version_dir,
                    package=b.package, mediatype=b.mediatype)
    ann = b.annotations
    if ann is not None:
        ch = ann.str("operators.operatorframework.io.bundle.channels.v1")
        if ch:
            f.channels = [c.strip() for c in ch.split(",") if c.strip()]
        f.default_channel = ann.str("operators.operatorframework.io.bundle.channel.default.v1")
        f.label = ann.str(LABEL_KEY)
    return f


def bundle_facts(b: Bundle, checked: bool = True) -> BundleFacts:  # noqa: C901
    vi = b.versions
    f = BundleFacts(rel=b.rel, checked=checked, operator=b.operator, version_dir=b.version_dir,
                    package=b.package, mediatype=b.mediatype, label=vi.label,
                    ocp_versions=list(vi.ocp_versions), ocp_installable=list(vi.ocp_installable), max_ocp=vi.max_ocp)
    f.fbc = bool(getattr(vi, "fbc_operator", False))
    f.dir_files = dict(b.dir_files)
    if vi.label_parsed is not None and getattr(vi.label_parsed, "ok", False):
        f.label_range = (vi.label_parsed.lower, vi.label_parsed.upper)
    if b.annotations_file is not None:
        f.annotations_pos = _pos(b.annotations_file, b.annotations)
        pk = b.annotation("operators.operatorframework.io.bundle.package.v1")
        if pk is not None:
            f.package_pos = _pos(b.annotations_file, pk)
        if vi.label_node is not None:
            f.label_pos = _pos(b.annotations_file, vi.label_node)
    if b.annotations is not None:
        ch = b.annotations.str("operators.operatorframework.io.bundle.channels.v1")
        if ch:
            f.channels = [c.strip() for c in ch.split(",") if c.strip()]
        f.default_channel = b.annotations.str("operators.operatorframework.io.bundle.channel.default.v1")
        # where the default channel annotation is, for the package-level default-channel check
        # (graph.default_channel); picklable Pos values only
        dn = b.annotations.get("operators.operatorframework.io.bundle.channel.default.v1")
        if dn is not None and b.annotations_file is not None:
            f.default_channel_pos = _pos(b.annotations_file, dn)
    csv = b.csv
    if csv is not None:
        f.csv_name = csv.name
        f.csv_pos = _pos(csv.file, csv.metadata.get("name") if csv.metadata is not None else csv.root)
        spec = csv.spec()
        if spec is not None:
            v = spec.get("version")
            if isinstance(v, Scalar) and v.value is not None:
                f.version = str(v.raw if not isinstance(v.value, str) else v.value)
            r = spec.get("replaces")
            if isinstance(r, Scalar) and isinstance(r.value, str):
                f.replaces, f.replaces_pos = r.value, _pos(csv.file, r)
            sk = spec.get("skips")
            if isinstance(sk, Sequence):
                f.skips = [(s.value, _pos(csv.file, s)) for s in sk if isinstance(s, Scalar) and isinstance(s.value, str)]
            crds = spec.get("customresourcedefinitions")
            owned = crds.get("owned") if isinstance(crds, Mapping) else None
            if isinstance(owned, Sequence):
                for o in owned:
                    if isinstance(o, Mapping):
                        f.owned_crds.append((o.str("name"), o.str("version"), o.str("kind")))
        sr = csv.annotation("olm.skipRange")
        if sr is not None and isinstance(sr.value, str):
            f.skip_range, f.skip_range_pos = sr.value, _pos(csv.file, sr)
    for m in b.crds:
        if m.name is None:
            continue
        spec = m.spec()
        served, storage, listed = [], [], []
        vers = spec.get("versions") if spec is not None else None
        if isinstance(vers, Sequence):
            for v in vers:
                if isinstance(v, Mapping) and v.str("name"):
                    listed.append(v.str("name"))
                    sv = v.get("served")
                    st = v.get("storage")
                    if isinstance(sv, Scalar) and sv.value is True:
                        served.append(v.str("name"))
                    if isinstance(st, Scalar) and st.value is True:
                        storage.append(v.str("name"))
        elif spec is not None and spec.str("version"):  # apiextensions v1beta1 single version
            served.append(spec.str("version"))
            storage.append(spec.str("version"))
            listed.append(spec.str("version"))
        f.crds[m.name] = {"served": served, "storage": storage, "versions": listed,
                          "pos": _pos(m.file, m.metadata.get("name"))}
    return f
