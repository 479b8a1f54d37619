"""Files on disk -> model. The only module (with ``discover``) that reads the checked tree.

Safety: nothing outside the checked tree is read (symlinks that leave it are refused),
binary and non-UTF-8 files are refused, sizes, nesting and aliases are limited; each refusal
is a ``yaml-limits`` problem on the file and loading goes on.
"""
from __future__ import annotations

import hashlib
import io
import os
import posixpath
import re
import stat
from collections import OrderedDict
from typing import Optional

from .model import Bundle, DockerLabel, Dockerfile, Manifest, SourceFile
from .nodes import Mapping
from . import yamlload
from .fastyaml import parse_fast
from .yamlload import Limits, Problem, decode, parse

# Keys whose values no rule reads as nodes: parsed and checked, but not built into nodes. CRD
# schemas are most of a catalog's bytes; a CSV's UI descriptors are a quarter of its lines (the
# rules that look into them read their text: alm-examples-schema, and owned-crd-fields' paths).
SKIP_KEYS = frozenset({"openAPIV3Schema", "specDescriptors", "statusDescriptors", "actionDescriptors"})
YAML_SUFFIXES = (".yaml", ".yml", ".json")


class ParseMemo:
    """Parse results by content: a catalog repeats files verbatim from bundle to bundle (the
    75,769 YAML files of community-operators-prod hold 22,511 distinct contents; its CRD
    files, 1.8 GB, hold 0.9 GB), and a file is parsed once per process. Results are shared,
    never changed (nodes and problems are read-only to rules). Least recently used results
    are dropped beyond ``budget`` (the length of the text built into nodes, which take 5-10
    times that), so memory stays flat over a catalog. 0.5 MB: a 2 MB budget kept ~10 MB more
    nodes per worker and was no faster (the collector walks what is kept)."""

    def __init__(self, budget: int = 512 * 1024):
        self.budget = budget
        self.used = 0
        self.items: OrderedDict = OrderedDict()  # key -> (result, weight)

    def get(self, key):
        hit = self.items.get(key)
        if hit is None:
            return None
        self.items.move_to_end(key)
        return hit[0]

    def put(self, key, result, weight: int) -> None:
        if weight > self.budget // 4:
            return
        self.items[key] = (result, weight)
        self.used += weight
        while self.used > self.budget:
            _, (_, w) = self.items.popitem(last=False)
            self.used -= w


PARSED = ParseMemo()


def stat_signature(st: os.stat_result) -> str:
    """What the result cache's file index (and ``Reader.digests``) recognise an unchanged file
    by: size, modification and change times, inode (as git's index does)."""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


_UNCHECKED = "Nothing in it is checked. Make it readable (its permissions, or what holds it) and check again."


def _printable(name: str) -> str:
    """A display path that every report can carry: bytes that are not UTF-8 (surrogates
    from the file system) as \\xNN, control characters (a newline in a file name) escaped."""
    name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in name)


class Reader:
    """Reads files below ``root`` with the safety rules; one per run."""

    def __init__(self, root: str, display_base: str, limits: Optional[Limits] = None,
                 skip_keys: frozenset = SKIP_KEYS, keep_raw: bool = True):
        self.root = os.path.realpath(root)
        self.display_base = display_base
        self.limits = limits or Limits()
        self.skip_keys = skip_keys
        self.keep_raw = keep_raw
        self._real_dirs: dict = {}  # directory -> its real path (``inside``)
        # path -> (stat signature, SHA-256) of each YAML file read whole, when a dict: the
        # result cache's keys are then made from what was read (``cache.Cache.defer``)
        self.digests: Optional[dict] = None
        self._last_stat: Optional[os.stat_result] = None  # read_bytes' stat of the file it read

    # absolute path -> the path as the user gave it (set by ``discover.plan``): display paths
    # of files outside ``display_base`` start with what the user typed
    given: dict = {}

    def rel(self, path: str) -> str:
        base = self.display_base
        if path.startswith(base) and path[len(base):len(base) + 1] == os.sep and "/." not in path and "//" not in path \
                and path.isprintable() and os.sep == "/":
            return path[len(base) + 1:]  # the common case, without relpath's normalising
        r = os.path.relpath(path, self.display_base)
        if r == os.pardir or r.startswith(os.pardir + os.sep):
            for a, g in self.given.items():
                if path == a or path.startswith(a.rstrip(os.sep) + os.sep):
                    r = g.rstrip(os.sep) + path[len(a):] if g.rstrip(os.sep) else path
                    break
            else:
                r = path
        r = r.replace(os.sep, "/")
        if not r.isprintable():
            r = _printable(r)
        return r

    # further trees the user named explicitly (paths outside ``root``; set by ``discover.plan``)
    extra_roots: tuple = ()

    def inside(self, path: str, is_link: bool = True) -> bool:
        """Whether ``path`` resolves inside the checked tree(s). ``is_link=False``: the path
        itself is known not to be a symbolic link, so only its directory is resolved (once
        per directory)."""
        if is_link:
            real = os.path.realpath(path)
        else:
            d, name = os.path.split(path)
            rd = self._real_dirs.get(d)
            if rd is None:
                if len(self._real_dirs) > 4096:
                    self._real_dirs.clear()
                rd = self._real_dirs[d] = os.path.realpath(d)
            real = os.path.join(rd, name)
        return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in (self.root, *self.extra_roots))

    def read_bytes(self, path: str, sf: SourceFile) -> Optional[bytes]:
        """The file's bytes, or None with a problem recorded on ``sf``."""
        try:
            st = os.lstat(path)
        except OSError as e:
            sf.problems.append(Problem("yaml-limits", 1, 1, f"the file cannot be read ({e.strerror})", severity="warning",
                                       detail=_UNCHECKED))
            return None
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(path)
            if not self.inside(path):
                sf.problems.append(Problem(
                    "yaml-limits", 1, 1, f"this is a symbolic link to '{target}', outside the checked tree",
                    detail="olm-check does not follow it, and a bundle image is built from the bundle directory alone "
                    "(the image builder does not follow links out of its build context). Replace the link with the "
                    "file's content."))
                return None
            try:
                st = os.stat(path)
            except OSError:
                sf.problems.append(Problem("yaml-limits", 1, 1, f"this symbolic link to '{target}' is broken",
                                           detail="opm cannot read it either. Remove it or replace it with the file."))
                return None
        elif not self.inside(path, is_link=False):
            # not a link itself, but reached through a symlinked directory that leaves the tree
            sf.problems.append(Problem(
                "yaml-limits", 1, 1, f"this file is reached through a symbolic link to '{os.path.realpath(path)}', "
                "outside the checked tree",
                detail="olm-check does not read outside the tree, and a bundle image is built from the files "
                "themselves. Replace the linked directory with the files."))
            return None
        if stat.S_ISDIR(st.st_mode):
            sf.problems.append(Problem("yaml-limits", 1, 1, "this is a directory where a file is expected", severity="warning",
                                       detail="There is nothing to read. Replace it with the file."))
            return None
        if not stat.S_ISREG(st.st_mode):
            sf.problems.append(Problem("yaml-limits", 1, 1, "this is not a regular file (a device, socket or pipe)", severity="warning",
                                       detail="olm-check does not read it. Remove it."))
            return None
        sf.size = st.st_size
        if st.st_size > self.limits.max_file_bytes:
            sf.problems.append(Problem(
                "yaml-limits", 1, 1, f"the file is {st.st_size / 1048576:.1f} MiB, over olm-check's limit of "
                f"{self.limits.max_file_bytes / 1048576:.0f} MiB",
                detail="A whole bundle must stay under 1 MiB compressed to fit in a catalog. Split or shrink it; raise "
                "limits.max_file_mib in .olm-check.yaml if it is genuine."))
            return None
        try:
            with open(path, "rb") as fh:
                self._last_stat = st  # taken before the read: a later change shows in the signature
                return fh.read(min(st.st_size, self.limits.max_file_bytes) + 1)
        except OSError as e:
            sf.problems.append(Problem("yaml-limits", 1, 1, f"the file cannot be read ({e.strerror})", severity="warning",
                                       detail=_UNCHECKED))
            return None

    def yaml_file(self, path: str, skip: bool = True) -> SourceFile:
        sf, data = self._text_file(path)
        text = sf.text
        if text is None:
            return sf
        skip_keys = self.skip_keys if skip else frozenset()
        digest = sf.digest
        self.note_digest(path, data, digest)
        key = (digest, skip_keys, self.limits.max_depth, self.limits.max_alias_nodes)
        got = PARSED.get(key)
        if got is None:
            info: dict = {}
            # the C accelerator skips building the skip keys' subtrees faster than fastyaml
            # blanks and checks them (a catalog sample's CRD and CSV files: 1.5 s of CPU against
            # 7.1 s): fastyaml serves the pure path only
            fast = parse_fast(text, self.limits, skip_keys, info) if skip_keys and not yamlload.ACCELERATED else None
            got = fast if fast is not None else parse(text, self.limits, skip_keys, info=info)
            # kept: files whose nodes are small -- CRD files (a fast parse built nodes for the
            # few lines around the skipped schemas only; the C accelerator built few nodes:
            # ~16 characters of text a node) and small files; a CSV is unique to its bundle
            # and its nodes are 10-20 times its text
            kept = info["kept"] if "kept" in info else (16 * info["nodes"] if "nodes" in info else len(text))
            if kept <= 16384:
                PARSED.put(key, got, kept)
        docs, problems = got
        sf.documents = list(docs)
        sf.problems.extend(problems)
        return sf

    def note_digest(self, path: str, data: bytes, digest: bytes) -> None:
        """Record the SHA-256 of a file just read whole by ``read_bytes`` (``digests``)."""
        st = self._last_stat
        if self.digests is not None and st is not None and len(data) == st.st_size:
            self.digests[path] = (stat_signature(st), digest)

    def text_file(self, path: str) -> SourceFile:
        return self._text_file(path)[0]

    def _text_file(self, path: str) -> tuple:
        sf = SourceFile(path=path, rel=self.rel(path))
        data = self.read_bytes(path, sf)
        if data is None:
            return sf, None
        sf.digest = hashlib.sha256(data).digest()
        text, problem = decode(data)
        if problem is not None:
            sf.problems.append(problem)
            if self.keep_raw:
                sf.raw = data
        else:
            sf.text = text
            sf.bom = data.startswith(b"\xef\xbb\xbf")
        return sf, data

    def dockerfile(self, path: str) -> Dockerfile:
        sf = self.text_file(path)
        df = Dockerfile(file=sf)
        if sf.text is None:
            return df
        try:
            from dockerfile_parse import DockerfileParser
            from dockerfile_parse.util import extract_key_values

            parser = DockerfileParser(fileobj=io.BytesIO(sf.text.encode("utf-8")), cache_content=True)
            structure = parser.structure
        except Exception as e:  # dockerfile-parse raises plain exceptions on odd input
            df.problems.append(Problem("bundle-layout", 1, 1, f"the Dockerfile cannot be parsed ({e})",
                                       detail="Its LABELs are not compared with metadata/annotations.yaml. Fix its syntax."))
            return df
        lines = sf.text.split("\n")
        for ins in structure:
            if ins.get("instruction") != "LABEL":
                continue
            try:
                pairs = _simple_label(ins.get("value", "")) or extract_key_values(False, {}, {}, ins.get("value", ""))
            except Exception as e:
                df.problems.append(Problem("bundle-layout", ins["startline"] + 1, 1, f"this LABEL cannot be parsed ({e})",
                                           detail="Write it as LABEL key=value pairs, quoting values with spaces."))
                continue
            for key, value in pairs:
                line, col = ins["startline"] + 1, 1
                for n in range(ins["startline"], ins["endline"] + 1):
                    if n < len(lines):
                        c = lines[n].find(key)
                        if c >= 0:
                            line, col = n + 1, c + 1
                            break
                df.labels[key] = DockerLabel(key, value, line, col)
        return df


_SIMPLE_LABEL = re.compile(r'([A-Za-z0-9_.\-/]+)=(?:([^\s"\'\\$]*)|"([^"\'\\$\n]*)")')


def _simple_label(value: str) -> Optional[list]:
    """``key=value`` or ``key="value"`` (no spaces outside quotes, escapes, variables or
    other quotes): the pairs dockerfile-parse's ``extract_key_values`` returns for it, without
    its character-by-character splitter (1-2 ms a Dockerfile). None for anything else."""
    m = _SIMPLE_LABEL.fullmatch(value.strip())
    if m is None:
        return None
    return [(m.group(1), m.group(2) if m.group(2) is not None else m.group(3))]


def _entries(path: str) -> list:
    try:
        with os.scandir(path) as it:
            return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)
    except OSError:
        return []


def load_metadata(reader: Reader, path: str) -> Bundle:
    """A bundle with only ``metadata/annotations.yaml`` read (package, channels, label)."""
    b = Bundle(path=path, rel=reader.rel(path))
    for name in ("annotations.yaml", "annotations.yml"):
        fp = os.path.join(path, "metadata", name)
        if os.path.lexists(fp):
            _annotations(b, reader.yaml_file(fp, skip=False))
            b.metadata_files.append(b.annotations_file)
            b.files.append(b.annotations_file)
            break
    return b


def _annotations(b: Bundle, sf: SourceFile) -> None:
    b.annotations_file = sf
    doc = sf.documents[0] if sf.documents else None
    ann = doc.get("annotations") if isinstance(doc, Mapping) else None
    if isinstance(ann, Mapping):
        b.annotations = ann
        b.mediatype = ann.str("operators.operatorframework.io.bundle.mediatype.v1")


ANNOTATIONS_NAMES = ("annotations.yaml", "annotations.yml")


def _linked_out(reader: Reader, b: Bundle, d: str) -> bool:
    """True when the bundle's directory ``d`` (manifests/ or metadata/) is a symbolic link that
    leaves the checked tree: recorded as a ``yaml-limits`` problem on it, nothing below it read."""
    if not os.path.islink(d) or reader.inside(d):
        return False
    sf = SourceFile(path=d, rel=reader.rel(d))
    name = os.path.basename(d)
    try:
        target = os.readlink(d)
    except OSError:
        target = "?"
    sf.problems.append(Problem(
        "yaml-limits", 1, 1, f"{name}/ is a symbolic link to '{target}', outside the checked tree",
        detail="olm-check does not read it, and a bundle image is built from the bundle directory alone (the image "
        f"builder does not follow links out of its build context), so the image would hold no {name}. Replace the link "
        "with the directory and its files."))
    b.files.append(sf)
    b.refused_dirs.append(name)
    return True


def openable(d: str, depth: int = 0) -> Optional[str]:
    """The file an editor should open for a finding about the directory ``d``, relative to it
    (None when the directory holds no file): an operator's ci.yaml; a bundle's
    ClusterServiceVersion, else its metadata/annotations.yaml, else the first file of
    manifests/ or metadata/; else the directory's first file (or its first subdirectory's)."""

    def files(sub: str) -> list:
        try:
            with os.scandir(os.path.join(d, sub) if sub else d) as it:
                return sorted(e.name for e in it if not e.name.startswith(".") and e.is_file())
        except OSError:
            return []

    if os.path.isfile(os.path.join(d, "ci.yaml")):
        return "ci.yaml"
    manifests = files("manifests")
    csv = [n for n in manifests if "clusterserviceversion" in n.lower()]
    if csv:
        return "manifests/" + csv[0]
    for name in ("annotations.yaml", "annotations.yml"):
        if os.path.isfile(os.path.join(d, "metadata", name)):
            return "metadata/" + name
    if manifests:
        return "manifests/" + manifests[0]
    meta = files("metadata")
    if meta:
        return "metadata/" + meta[0]
    here = files("")
    if here:
        yamls = [n for n in here if n.endswith((".yaml", ".yml"))]
        return (yamls or here)[0]
    if depth < 3:
        try:
            with os.scandir(d) as it:
                subs = sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            subs = []
        for sub in subs:
            got = openable(os.path.join(d, sub), depth + 1)
            if got is not None:
                return sub + "/" + got
    return None


def _dir_files(b: Bundle, path: str) -> dict:
    """{display path of a directory of the bundle: the file in it an editor opens (relative to
    it)} for the bundle directory, manifests/, metadata/ and a metadata/annotations.yaml that
    is a directory: where a finding about one of them is shown (``engine.place``). Links are
    not followed (a linked directory is reported where it is)."""
    dirs = [(b.rel, path), (b.sub("manifests"), os.path.join(path, "manifests")),
            (b.sub("metadata"), os.path.join(path, "metadata"))]
    if b.annotations_dir:
        for name in ("annotations.yaml", "annotations.yml"):
            dirs.append((b.sub("metadata", name), os.path.join(path, "metadata", name)))
    out = {}
    for rel, d in dirs:
        if os.path.isdir(d) and not os.path.islink(d):
            sub = openable(d)
            if sub is not None:
                out[posixpath.normpath(rel)] = sub
    return out


def load_bundle(reader: Reader, path: str) -> Bundle:  # noqa: C901
    """Read one bundle directory (registry+v1, k8s+v1/plain, or half of one)."""
    b = Bundle(path=path, rel=reader.rel(path))
    manifests_dir = os.path.join(path, "manifests")
    metadata_dir = os.path.join(path, "metadata")
    b.has_manifests_dir, b.has_metadata_dir = os.path.isdir(manifests_dir), os.path.isdir(metadata_dir)

    if b.has_metadata_dir and not _linked_out(reader, b, metadata_dir):
        for e in _entries(metadata_dir):
            fp = e.path
            if e.is_dir(follow_symlinks=False):
                if e.name in ANNOTATIONS_NAMES:
                    b.layout_problems.append((reader.rel(fp), f"metadata/{e.name} is a directory, not a file",
                                              "opm finds no bundle annotations (\"Could not find annotations file\"), so it "
                                              "cannot tell the bundle's package, channels or format. Replace the directory "
                                              "with the annotations file."))
                    b.annotations_dir = True
                continue
            if e.name.endswith(YAML_SUFFIXES) or e.is_symlink():
                sf = reader.yaml_file(fp, skip=False)
                b.metadata_files.append(sf)
                b.files.append(sf)
                if e.name in ("annotations.yaml", "annotations.yml"):
                    b.annotations_file = sf
                elif e.name in ("properties.yaml", "properties.yml"):
                    b.properties_file = sf
    if b.annotations_file is not None and b.annotations_file.documents:
        doc = b.annotations_file.documents[0]
        ann = doc.get("annotations") if isinstance(doc, Mapping) else None
        if isinstance(ann, Mapping):
            b.annotations = ann
            mt = ann.str("operators.operatorframework.io.bundle.mediatype.v1")
            b.mediatype = mt

    if b.has_manifests_dir and not _linked_out(reader, b, manifests_dir):
        try:
            with os.scandir(manifests_dir) as it:
                b.hidden_manifests = sorted(reader.rel(e.path) for e in it if e.name.startswith("."))
        except OSError:
            pass
        for e in _entries(manifests_dir):
            if e.is_dir(follow_symlinks=False):
                b.layout_problems.append((reader.rel(e.path), f"manifests/{e.name}/ is a directory inside manifests/",
                                          "OLM reads only the files directly in manifests/, so everything in this "
                                          "directory is ignored, and operator-sdk's bundle loader fails on it. Move its "
                                          "files up into manifests/."))
                continue
            sf = reader.yaml_file(e.path)
            b.manifest_files.append(sf)
            b.files.append(sf)
            for i, doc in enumerate(sf.documents):
                if doc is None:
                    continue
                b.manifests.append(Manifest(file=sf, index=i, root=doc))

    for name in ("bundle.Dockerfile", "Dockerfile"):
        fp = os.path.join(path, name)
        if os.path.lexists(fp):
            b.dockerfile = reader.dockerfile(fp)
            b.files.append(b.dockerfile.file)
            break
    # the catalog pipelines read <bundle>/release-config.yaml (operatorcert operator_repo Bundle.release_config)
    fp = os.path.join(path, "release-config.yaml")
    if os.path.lexists(fp):
        b.release_config = reader.yaml_file(fp, skip=False)
        b.files.append(b.release_config)
    b.dir_files = _dir_files(b, path)
    return b


def looks_like_bundle(path: str) -> bool:
    return os.path.isdir(os.path.join(path, "manifests")) or os.path.isdir(os.path.join(path, "metadata"))
