"""Paths -> the bundles, operators, catalogs and CatalogSource manifests to check.

Given a bundle dir, an operator dir (``operators/<name>/`` with version dirs), a catalog
repository root (``operators/`` and/or ``catalogs/``) or any other directory (walked for
bundle dirs), ``plan`` builds a ``Repository`` of bundle references (nothing of a bundle
read); ``load_ref`` loads one bundle, ``operator_context`` what its operator gives it.
Half-formed bundle dirs are loaded too (rules report them); YAML files outside bundles are
scanned for CatalogSource manifests.

An operator-sdk / kubebuilder project is a first-class input (``layout``): ``config/`` (the
kustomize sources, ``config/manifests/`` the input of ``make bundle``) is never a bundle,
and the project root's ``bundle.Dockerfile`` that copies from ``bundle/`` is that bundle's
Dockerfile (naming it checks the bundle). The configuration's ``exclude:`` patterns
(``config.Excludes``) leave out other paths, walked or named.
"""
from __future__ import annotations

import os
from typing import Optional

from .load import Reader, YAML_SUFFIXES, load_bundle, looks_like_bundle
from .layout import OPERATORS, bundle_dockerfile, bundle_place, dockerfile_bundle, in_config_sources, operator_dirs_touched
from .roots import display_base, enclosing_root, git_toplevel
from .model import BundleRef, Manifest, Operator, OperatorContext, Repository
from .yamlload import Limits

SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".github"}


class UsageError(Exception):
    pass


class Skip:
    """Which paths a run leaves out: operator-sdk's ``config/`` (``layout.in_config_sources``)
    and the configuration's ``exclude:`` patterns, both on paths relative to ``base`` (the
    git work tree, else the current directory: where ``.olm-check.yaml`` is read), or to
    ``root`` (the checked tree) for a path outside ``base``."""

    def __init__(self, base: str, root: str, exclude=None):
        self.base, self.root, self.exclude = os.path.abspath(base), os.path.abspath(root), exclude

    def rel(self, path: str) -> Optional[str]:
        for top in (self.base, self.root):
            r = os.path.relpath(os.path.abspath(path), top).replace(os.sep, "/")
            if r != ".." and not r.startswith("../"):
                return r
        return None

    def __call__(self, path: str, is_dir: bool = True) -> bool:
        r = self.rel(path)
        if r is None or r == ".":
            return False
        return in_config_sources(r if is_dir else os.path.dirname(r)) or bool(self.exclude and self.exclude.match(r, is_dir))


NO_SKIP = lambda path, is_dir=True: False  # noqa: E731


def find_bundle_dirs(path: str, only: Optional[set] = None, skip=NO_SKIP) -> list:
    """Bundle directories under ``path`` (``path`` itself if it is one). A bundle dir has a
    manifests/ or metadata/ directory; the walk does not descend into bundles. ``only``: of
    a catalog repository's operators/, walk only these operators' directories (absolute
    paths, as ``path`` is given). ``skip`` (``Skip``): directories left out."""
    if skip(path):
        return []
    if looks_like_bundle(path):
        return [path]
    out = []
    for dirpath, dirnames, _files in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
                             and not skip(os.path.join(dirpath, d)))
        if only is not None and os.path.basename(dirpath) == OPERATORS:
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) in only]
        if dirpath != path and looks_like_bundle(dirpath):
            out.append(dirpath)
            dirnames[:] = []
            continue
        # catalogs/ holds FBC, never bundles
        if os.path.basename(dirpath) == "catalogs" and os.path.isdir(os.path.join(dirpath, "..", "operators")):
            dirnames[:] = []
    return out


def load_ref(reader: Reader, ref: BundleRef):
    """Load the bundle a ``BundleRef`` names (one bundle; nothing else is read but, for a
    bundle without a Dockerfile of its own, the project root's ``bundle.Dockerfile`` that
    copies from it: ``layout.bundle_dockerfile``)."""
    b = load_bundle(reader, ref.path)
    b.operator, b.version_dir = ref.operator, ref.version_dir
    if b.dockerfile is None and b.operator is None:
        fp = bundle_dockerfile(ref.path)
        if fp is not None and reader.inside(fp):
            b.dockerfile = reader.dockerfile(fp)
            b.files.append(b.dockerfile.file)
    return b


def shard_of(key: str, count: int) -> int:
    """The shard (0-based) of an operator name (or of a bundle path outside operators/):
    a stable hash, the same on every machine and Python version."""
    import hashlib

    return int.from_bytes(hashlib.sha1(key.encode("utf-8")).digest()[:8], "big") % count


def plan(paths: list, limits: Optional[Limits] = None, changed: Optional[list] = None,  # noqa: C901
         root: Optional[str] = None, shard: Optional[tuple] = None, catalogs: bool = True,
         exclude=None) -> Repository:
    """Find what ``paths`` hold without loading any bundle: ``repo.bundle_refs`` (bundle
    directories, in a stable order), operators (with ci.yaml), catalogs, loose CatalogSource
    manifests, and which bundles are checked. Cheap: directory listings, ci.yaml, catalogs.

    The operator is the unit of context (``checker.layout``): a bundle of
    ``operators/<name>/<version>/`` named on its own (its directory, a file of it) brings the
    operator's other bundles in as context (``repo.checked`` lists the named ones), and the
    checked tree (where symbolic links may lead) is the catalog repository's root, or the git
    work tree around it. With ``changed`` (a change list), only the operators it touches are
    walked: the bundles it changes are checked, their operators' other bundles are context,
    nothing else of operators/ is read.

    ``shard=(index, count)`` (0-based index) keeps only the operators (and bundles outside
    operators/) whose ``shard_of`` is ``index``: every bundle of an operator lands in the same
    shard, so rules across an operator's bundles see all of them.

    ``catalogs=False`` leaves the operators' file-based catalogs unread: the streaming engine
    reads them one operator at a time (``load_catalogs`` on an operator slice)."""
    if not paths and root is not None:
        top = git_toplevel(root) or os.path.abspath(root)
        repo = Repository(root=top)
        repo.reader = Reader(top, display_base([root]), limits)
        repo.is_catalog_repo = os.path.isdir(os.path.join(top, "operators"))
        if changed is not None:
            repo.changed_files = list(changed)
            repo.checked = ["\0none"]
        return repo
    if not paths:
        paths = ["."]
    for p in paths:
        if not os.path.exists(p):
            raise UsageError(f"{p}: no such file or directory{_sibling_hint(p)}")
    abs_paths = [os.path.abspath(p) for p in paths]
    base = display_base(paths)
    # the git work tree or the catalog repository around the first path (``roots``): a path
    # inside a catalog repository has its root (the parent of operators/) as the checked
    # tree's root, with or without git
    enclosing = enclosing_root(abs_paths[0])
    root = enclosing or (abs_paths[0] if os.path.isdir(abs_paths[0]) else os.path.dirname(abs_paths[0]))
    repo = Repository(root=root)
    # the checked tree: symlinks may not leave it
    tree = enclosing or os.path.commonpath([p if os.path.isdir(p) else os.path.dirname(p) for p in abs_paths])
    reader = Reader(tree, base, limits)
    reader.given = {a: p for a, p in zip(abs_paths, paths)}
    # every path the user names is checked: a second path outside the first one's tree is a
    # tree too, the tree it has when named alone (its catalog repository or git work tree, so
    # that its operator's ci.yaml and catalogs are read as they are then)
    reader.extra_roots = tuple(dict.fromkeys(
        os.path.realpath(enclosing_root(a) or (a if os.path.isdir(a) else os.path.dirname(a)))
        for a in abs_paths if not reader.inside(a)))
    repo.reader = reader
    skip = Skip(git_toplevel(abs_paths[0]) or os.getcwd(), root, exclude)

    bundle_dirs: list = []
    loose: list = []
    # a change list (paths relative to the git work tree, where display paths start): of
    # operators/, only the operators it touches are read
    only = operator_dirs_touched(base, changed) if changed is not None else None
    for p in abs_paths:
        if os.path.isfile(p):
            if skip(p, is_dir=False):
                continue
            # a file: the bundle it belongs to (a project root's bundle.Dockerfile: the bundle
            # it copies from), or a loose manifest
            b = _owning_bundle(p, skip) or dockerfile_bundle(p)
            if b is not None:
                bundle_dirs.append(b)
            else:
                loose.append(p)
            continue
        if os.path.basename(p) in ("manifests", "metadata") and looks_like_bundle(os.path.dirname(p)) \
                and not skip(os.path.dirname(p)):
            bundle_dirs.append(os.path.dirname(p))  # run from inside a bundle: that bundle
            continue
        if os.path.isdir(os.path.join(p, "operators")):
            repo.is_catalog_repo = True
        bundle_dirs += find_bundle_dirs(p, only, skip)
        loose += _loose_yaml(p, skip)

    # the operator is the unit of context: a bundle named alone (its directory, a file of it)
    # is checked with every other bundle of its operator beside it, as context. Operators are
    # told apart by their directory: two catalog trees of one run may each hold one of a name
    named = set(bundle_dirs)
    context_ops: dict = {}
    for d in bundle_dirs:
        name, _ = bundle_place(d)
        if name is not None:
            context_ops.setdefault(os.path.dirname(d), name)
    context = []
    for odir, name in sorted(context_ops.items(), key=lambda kv: (kv[1], kv[0])):
        context += [d for d in find_bundle_dirs(odir) if d not in named and bundle_place(d)[0] == name]
    seen = set()
    for d in bundle_dirs + context:
        if d in seen:
            continue
        seen.add(d)
        ref = BundleRef(path=d, rel=reader.rel(d))
        ref.operator, ref.version_dir = bundle_place(d)
        if shard is not None and shard_of(ref.operator or ref.rel, shard[1]) != shard[0]:
            continue
        if ref.operator is not None:
            parent = ref.operator_dir
            op = repo.operators.get(parent)
            if op is None:
                op = Operator(ref.operator, parent, reader.rel(parent))
                ci = os.path.join(parent, "ci.yaml")
                if os.path.isfile(ci):
                    op.ci_file = reader.yaml_file(ci, skip=False)
                repo.operators[parent] = op
            repo.is_catalog_repo = True
        repo.bundle_refs.append(ref)
    if context:  # in the order a walk of the operator's directory finds them, as when it is named
        repo.bundle_refs.sort(key=lambda r: r.path.split(os.sep))
    if catalogs:
        _load_catalogs(repo, reader)
    for f in sorted(set(loose)):
        sf = _catalogsource_candidate(reader, f)
        if sf is None:
            continue
        repo.loose_files.append(sf)
        for i, doc in enumerate(sf.documents):
            if doc is not None and doc.get("kind") is not None and getattr(doc.get("kind"), "value", None) == "CatalogSource":
                repo.catalog_sources.append(Manifest(file=sf, index=i, root=doc))
    if changed is not None:
        repo.changed_files = list(changed)
        # a bundle is changed by a file of it, or by the project root's bundle.Dockerfile it is built with
        dockerfiles = {r.rel: reader.rel(df) for r in repo.bundle_refs if r.operator is None
                       for df in [bundle_dockerfile(r.path)] if df is not None and os.path.dirname(df) != r.path}
        repo.checked = [r.rel for r in repo.bundle_refs
                        if any(c == r.rel or c.startswith(r.rel + "/") or c == dockerfiles.get(r.rel) for c in changed)]
        # what the change touches, nothing more: the checked bundles, and the other bundles of
        # their operators (and of operators whose ci.yaml or catalogs changed) as context
        keep = set(repo.checked) | {r.rel for r in repo.bundle_refs if r.operator_dir in context_ops}
        repo.bundle_refs = [r for r in repo.bundle_refs if r.rel in keep]
        if not repo.checked:
            repo.checked = ["\0none"]  # nothing touched: check nothing, report nothing
    elif context:
        repo.checked = sorted({reader.rel(d) for d in named})
    return repo


def _sibling_hint(path: str) -> str:
    """`` (did you mean 'bundle'?)`` for a mistyped path: the closest names in the directory
    its first missing part would be in, shown as typed; "" when none is close."""
    from .suggest import close

    parts = path.split("/")
    cur = "/" if path.startswith("/") else "."
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        nxt = os.path.join(cur, part)
        if os.path.exists(nxt):
            cur = nxt
            continue
        try:
            with os.scandir(cur) as it:
                names = [e.name for e, _ in zip(it, range(10000)) if not e.name.startswith(".")]
        except OSError:
            return ""
        got = close(part, names, n=2)
        shown = ["/".join(parts[:i] + [g]) for g in got]
        return (" (did you mean " + " or ".join(f"'{x}'" for x in shown) + "?)") if shown else ""
    return ""


def load_catalogs(repo: Repository, reader: Reader) -> None:
    """The file-based catalogs of ``repo.operators`` (into ``repo.fbc`` and
    ``repo.catalogs``, by operator name: the operators of one tree, a slice or a change
    list's)."""
    _load_catalogs(repo, reader)


def operator_context(repo: Repository, key: str, refs: list):
    """What a bundle of the operator at ``key`` (its directory, ``BundleRef.operator_dir``:
    the key of ``repo.operators``) is checked with (``model.OperatorContext``),
    read before any of its bundles' rules run: the operator (its ci.yaml), its file-based
    catalogs, and every bundle's light facts from ``metadata/annotations.yaml`` alone
    (``facts.light_facts``: package, channels, default channel, label, mediatype), in
    ``refs`` order. Nothing else of the bundles is read here."""
    from .catalogs import load_operator_catalogs
    from .facts import light_facts
    from .load import load_metadata

    reader = repo.reader
    op = repo.operators[key]
    siblings = []
    for ref in refs:
        light = load_metadata(reader, ref.path)
        light.operator, light.version_dir = ref.operator, ref.version_dir
        siblings.append(light_facts(light))
    return OperatorContext(name=op.name, operator=op, refs=list(refs), siblings=siblings,
                           catalogs=load_operator_catalogs(reader, op))


def _load_catalogs(repo: Repository, reader: Reader) -> None:
    """FBC catalogs (catalogs/v4.X/<operator>/catalog.*) of the operators being loaded."""
    from .catalogs import load_operator_catalogs

    for _key, op in sorted(repo.operators.items()):
        name = op.name
        oc = load_operator_catalogs(reader, op)
        repo.fbc[name] = oc
        for ocp, cat in oc.catalogs.items():
            repo.catalogs.setdefault(ocp, {})[name] = cat


def _owning_bundle(path: str, skip=NO_SKIP) -> Optional[str]:
    d = os.path.dirname(path)
    for _ in range(3):
        if looks_like_bundle(d) and not skip(d):
            return d
        d = os.path.dirname(d)
    return None


def _loose_yaml(path: str, skip=NO_SKIP) -> list:
    """YAML files outside bundle dirs, catalogs/, hidden and skipped dirs (CatalogSource candidates)."""
    out: list = []
    if looks_like_bundle(path) or skip(path):
        return out  # a bundle's files are the bundle's, read once by load_bundle
    for dirpath, dirnames, files in os.walk(path):
        keep = []
        for d in sorted(dirnames):
            full = os.path.join(dirpath, d)
            if d in SKIP_DIRS or d.startswith(".") or looks_like_bundle(full) or skip(full):
                continue
            if d in ("catalogs", "operators") and dirpath == path:
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in files:
            if f.endswith(YAML_SUFFIXES[:2]) and not skip(os.path.join(dirpath, f), is_dir=False):
                out.append(os.path.join(dirpath, f))
    return out


def _catalogsource_candidate(reader: Reader, path: str):
    """Parse a loose YAML file only if it may hold a CatalogSource (cheap text test first).
    Only regular files inside the checked tree are opened (never a FIFO, a device, or a
    symlink out of the tree); others are not candidates."""
    try:
        if not reader.inside(path) or not os.path.isfile(path):
            return None
        with open(path, "rb") as fh:
            head = fh.read(min(os.fstat(fh.fileno()).st_size, reader.limits.max_file_bytes) + 1)
    except OSError:
        return None
    if b"CatalogSource" not in head:
        return None
    return reader.yaml_file(path, skip=False)
