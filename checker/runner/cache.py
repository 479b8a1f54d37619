"""The result cache (``--cache DIR``): an unchanged bundle is not loaded again.

A bundle's ``BundleResult`` (raw findings, facts, ignore-comment lines) is stored under a key
made of:

* the content of every file and directory entry of the bundle directory that the loader and
  the rules look at (``manifests/``, ``metadata/``, the Dockerfiles, the listing itself);
* its operator's repository-level inputs (``operator_inputs``: ``operators/<op>/ci.yaml``
  and ``catalogs/*/<op>/`` files), which prepare hooks apply to the bundle;
* the tool: its version and a digest of its own code and data files (a rule edited in a
  development checkout invalidates the cache too);
* the run's settings: config signature, OCP table and API table signatures, profile,
  ``--ocp`` target, whether the bundle is checked or context, its display path, the checked
  tree's root and the further trees the run's paths name (``load.Reader.extra_roots``).

Operators are keyed by their directory (``model.BundleRef.operator_dir``), never by name
alone: two catalog trees checked in one run may each hold an operator of the same name.

Severities, inline ignores and repository rules are settled after the cache, on every run,
so they are never stale. File contents are hashed once: a stat index (path, size, mtime,
ctime, inode -> sha256, as git's index does) lets a warm run skip reading unchanged files;
entries written within two seconds of a file's modification are not trusted later.

Keys are made up front (``prepare``), before anything is checked, so that cached bundles are
not loaded at all -- except when no result was ever stored under the run's signature
(``defer``: a new cache, another olm-check version or configuration): nothing can hit then,
and each worker makes the keys of what it has just checked, from the digests of the files as
it read them (``load.Reader.digests``), instead of the whole catalog being hashed first.

Storage: one SQLite database, ``DIR/olm-check-cache.sqlite``, written by the main process
(and the short-lived processes that hash files: ``prepare``). A result no run has read or
written for 30 days is dropped when a run closes the cache.

What is stored is plain data: each result is JSON (``encode``) that reading turns back into
strings, numbers, lists and the few result classes only (``decode``), never a pickle, which
runs whatever it names when it is read. A damaged or crafted entry is a miss. Still, whoever
can write the cache can forge results (a key is computable from the tree), so a directory
inside the checked tree, or one git tracks, is refused (``unsafe_reason``): a pull request
could commit one.
"""
from __future__ import annotations

import hashlib
import json
import mmap
import os
import sqlite3
import stat
import time
from typing import Optional

from .. import __version__
from ..git import tracked_file
from ..layout import locate
from ..load import stat_signature

SCHEMA = 4  # 4: results are JSON (``encode``); 3 and before held pickles, never read now
MAX_AGE = 30 * 86400  # results unused for 30 days are dropped
_CODE_DIGEST: Optional[str] = None


def code_digest() -> str:
    """sha256 over olm-check's own source and data files, and the Python and PyYAML (with or
    without libyaml) that run them (computed once per process)."""
    global _CODE_DIGEST
    if _CODE_DIGEST is None:
        import sys

        import yaml

        h = hashlib.sha256(__version__.encode())
        h.update(f"{sys.version}\0{yaml.__version__}\0{getattr(yaml, '__with_libyaml__', False)}\0".encode())
        base = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the checker package
        for dirpath, dirnames, files in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for f in sorted(files):
                if f.endswith((".py", ".yaml", ".yml", ".json")):
                    p = os.path.join(dirpath, f)
                    h.update(os.path.relpath(p, base).encode())
                    with open(p, "rb") as fh:
                        h.update(hashlib.sha256(fh.read()).digest())
        _CODE_DIGEST = h.hexdigest()
    return _CODE_DIGEST


def unsafe_reason(directory: str, checked: list) -> Optional[str]:
    """Why ``directory`` must not hold the cache of a run checking ``checked`` (paths), or
    None. Whoever writes the cache decides what a run reports for the bundles it answers
    (keys are computable from the tree): a directory inside a checked tree, or one holding a
    file git tracks, could come from the pull request being checked. Refused, not skipped:
    a cache that silently does nothing would hide the mistake in the workflow."""
    cache = os.path.realpath(directory)
    for p in checked:
        top = os.path.realpath(p)
        if not os.path.isdir(top):
            top = os.path.dirname(top)
        trees = [top]
        # below a catalog repository's operators/ (an operator, a bundle, a file of one): the
        # run reads the repository's ci.yaml and catalogs/ too
        place = locate(top)
        if place is not None and place.root != top:
            trees.append(place.root)
        for t in trees:
            if cache == t or cache.startswith(t.rstrip(os.sep) + os.sep):
                return (f"it is inside the checked tree {p if t == top else t}, where a pull request could put one: "
                        "use a directory outside it (e.g. ~/.cache/olm-check)")
    tracked = tracked_file(cache)
    if tracked:
        return (f"git tracks {tracked} in it, so a commit could put one there: "
                "use a directory outside the work tree, or one git does not track")
    return None


# -- stored results: plain data --------------------------------------------------------------
# A stored result is JSON text that only ever becomes plain values (str, int, float, bool,
# None, list) and the few classes listed in ``_classes``, built from their fields: nothing in
# it names code to run, unlike a pickle, whose loading calls whatever it names. Every JSON
# object in it is a one-key tag: "t" tuple, "s" set, "z" frozenset, "d" dict (as [key, value]
# pairs, so keys keep their type), or a class's letter with its field values in order.
_CLASSES: Optional[dict] = None


def _classes() -> dict:
    """tag -> (class, field names) (late: the engine imports this module's users)."""
    global _CLASSES
    if _CLASSES is None:
        from dataclasses import fields

        from ..engine import BundleResult
        from ..finding import Finding, Fix
        from ..model import BundleFacts, Pos

        _CLASSES = {tag: (cls, tuple(f.name for f in fields(cls)))
                    for tag, cls in (("R", BundleResult), ("F", Finding), ("X", Fix), ("P", Pos), ("B", BundleFacts))}
    return _CLASSES


class NotPlainData(TypeError):
    """A result holding a value the cache cannot store as plain data (it is not cached)."""


def encode(value) -> bytes:
    """``value`` as the cache stores it (see ``_classes``); ``NotPlainData`` for anything else."""
    tags = {cls: (tag, names) for tag, (cls, names) in _classes().items()}
    plain = (str, int, float, bool, type(None))

    def enc(v):
        t = type(v)
        if t in plain:
            return v
        if t is list:
            return [x if type(x) is str else enc(x) for x in v]
        if t is tuple:
            return {"t": [enc(x) for x in v]}
        if t is dict:
            return {"d": [[enc(k), enc(x)] for k, x in v.items()]}
        got = tags.get(t)
        if got is not None:
            return {got[0]: [enc(getattr(v, n)) for n in got[1]]}
        if t is set or t is frozenset:
            return {"s" if t is set else "z": [enc(x) for x in sorted(v, key=repr)]}
        raise NotPlainData(f"cannot store a {t.__name__}")

    try:
        return json.dumps(enc(value), separators=(",", ":")).encode("ascii")
    except (RecursionError, ValueError) as e:  # nested too deep; a cycle
        raise NotPlainData(str(e)) from None


def decode(data: bytes, check: bool = True):
    """What ``encode`` stored. Raises ``ValueError`` for anything else (a damaged or crafted
    entry: a miss), including -- with ``check`` -- a class's field of the wrong type where the
    report relies on the type (a finding's text, position and releases). Without ``check``
    (what a worker of this run just encoded) the values come back as they were sent, as a
    pickle would bring them: a rule's odd value reaches the report as it always did, and the
    cache, which checks, answers that bundle no more."""
    classes = _classes()

    def hook(obj: dict):
        if len(obj) != 1:
            raise ValueError("not a stored value")
        (tag, v), = obj.items()
        if type(v) is not list:
            raise ValueError("not a stored value")
        if tag == "t":
            return tuple(v)
        if tag == "d":
            return {_key(k): x for k, x in _pairs(v)}
        if tag == "s":
            return {_key(x) for x in v}
        if tag == "z":
            return frozenset(_key(x) for x in v)
        got = classes.get(tag)
        if got is None or len(v) != len(got[1]):
            raise ValueError(f"not a stored value: {tag!r}")
        out = got[0](*v)
        if check:
            _valid(tag, out, classes)
        return out

    try:
        return json.loads(data, object_hook=hook)
    except (TypeError, RecursionError, UnicodeDecodeError) as e:
        raise ValueError(str(e)) from None


def _pairs(v: list):
    for p in v:
        if type(p) is not list or len(p) != 2:
            raise ValueError("not a stored mapping")
        yield p


def _key(k):
    try:
        hash(k)
    except TypeError:
        raise ValueError("not a stored key") from None
    return k


_OPT_STR = (str, type(None))


def _valid(tag: str, v, classes: dict) -> None:
    """The types the report and the repository rules rely on (a miss otherwise, never a
    traceback later)."""
    if tag == "F":
        ok = (type(v.rule) is str and type(v.message) is str and type(v.path) is str
              and type(v.line) is int and type(v.column) is int and type(v.severity) in _OPT_STR
              and type(v.ocp_versions) is list and all(type(x) is str for x in v.ocp_versions)
              and type(v.bundle) in _OPT_STR and (v.fix is None or type(v.fix) is classes["X"][0])
              and type(v.detail) is str)
    elif tag == "X":
        ok = type(v.line) is int and type(v.replacement) is str and type(v.description) is str
    elif tag == "P":
        ok = type(v.path) is str and type(v.line) is int and type(v.column) is int
    elif tag == "R":
        finding = classes["F"][0]
        ok = (type(v.rel) is str and type(v.findings) is list and type(v.ignores) is dict
              and (v.facts is None or type(v.facts) is classes["B"][0])
              and all(type(f) is finding for f in v.findings)
              and all(type(p) is str and type(ls) is dict and all(type(n) is int and type(t) is str for n, t in ls.items())
                      for p, ls in v.ignores.items()))
    else:  # "B": what every repository rule reads first
        ok = (type(v.rel) is str and type(v.checked) is bool and type(v.crds) is dict
              and type(v.ocp_versions) is list and type(v.ocp_installable) is list)
    if not ok:
        raise ValueError(f"not a stored value: {tag!r} of the wrong types")


class _Parts(list):
    """Collects what ``Cache._entry`` hashes (it calls ``update``), to hash it later."""

    update = list.append


class Cache:
    FILE = "olm-check-cache.sqlite"

    def __init__(self, directory: str):
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, self.FILE)
        self.db = sqlite3.connect(self.path, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
        row = self.db.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
        if row is None or row[0] != str(SCHEMA):  # another layout: start again, reading nothing of it
            # (a new database may already hold the snapshots table, made by this run)
            for table in ("files", "results", "runs") + (("snapshots",) if row is not None else ()):
                self.db.execute(f"DROP TABLE IF EXISTS {table}")
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
        self.db.execute("CREATE TABLE IF NOT EXISTS files (path BLOB PRIMARY KEY, st TEXT, digest BLOB)")
        self.db.execute("CREATE TABLE IF NOT EXISTS results (key BLOB PRIMARY KEY, data BLOB, used REAL)")
        # the run signatures (``run_signature``) results were ever stored under: a run whose
        # signature is not here can hit nothing (``defer``)
        self.db.execute("CREATE TABLE IF NOT EXISTS runs (sig BLOB PRIMARY KEY)")
        self.db.commit()
        self._index_loaded = False
        self._index: dict = {}
        self._new_files: dict = {}
        self._new_results: list = []
        self._keys: dict = {}  # (rel, checked) -> key (prepare, get) for put()
        self.operator_keys: dict = {}  # operator directory -> key (prepare)
        self._run_sig: Optional[bytes] = None
        self._op_inputs: dict = {}
        self._dirs: dict = {}
        self._by_operator: Optional[dict] = None
        self.hits = self.misses = 0
        self.deferred = False  # keys made where the bundles are checked (``defer``)
        self.known: dict = {}  # path -> (stat signature, SHA-256) of files read while checking
        self._pid = os.getpid()
        self._used: list = []  # keys of results read (their ``used`` time is renewed at close)
        self.started = time.time()

    # -- file digests ------------------------------------------------------------------------
    def _load_index(self) -> dict:
        if not self._index_loaded:
            # paths are stored as the file system's bytes (a name need not be UTF-8)
            self._index = {os.fsdecode(p): (st, d) for p, st, d in self.db.execute("SELECT path, st, digest FROM files")}
            self._index_loaded = True
        return self._index

    def file_digest(self, path: str, st: os.stat_result) -> bytes:
        sig = stat_signature(st)
        known = self.known.get(path)
        if known is not None:
            # read while checking (``defer``): the key is of the content that was checked, even
            # if the file has changed since; the index learns it only if it has not
            if known[0] == sig and path not in self._index:
                self._remember(path, st, sig, known[1])
            return known[1]
        got = self._load_index().get(path)
        if got is not None and got[0] == sig:
            return got[1]
        h = hashlib.sha256()
        try:
            with open(path, "rb") as fh:
                if st.st_size >= 1 << 16:
                    try:  # hashed where it lies in the page cache: no copy (2.3 GB a catalog)
                        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                            h.update(mm)
                    except (ValueError, OSError):  # emptied since the stat, or not mappable
                        h = hashlib.sha256(fh.read())
                else:
                    h.update(fh.read())
        except OSError as e:
            h.update(f"unreadable:{e.errno}".encode())
            return h.digest()
        d = h.digest()
        self._remember(path, st, sig, d)
        return d

    def _remember(self, path: str, st: os.stat_result, sig: str, d: bytes) -> None:
        # racily clean: a file modified within 2 s of now may change again unseen
        if st.st_mtime_ns < (self.started - 2) * 1e9:
            self._new_files[path] = (sig, d)
            self._index[path] = (sig, d)

    def _entry(self, h, path: str, name: str, depth: int, st: Optional[os.stat_result] = None) -> None:
        """Hash one directory entry (and, for ``depth`` > 0, a directory's entries)."""
        if st is None:
            try:
                st = os.lstat(path)
            except OSError:
                h.update(f"?{name}\0".encode("utf-8", "surrogateescape"))
                return
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            h.update(f"L{name}\0{target}\0".encode("utf-8", "surrogateescape"))
            try:
                st = os.stat(path)
            except OSError:
                h.update(b"broken\0")
                return
            real = os.path.realpath(path)
            h.update(real.encode("utf-8", "surrogateescape") + b"\0")
        if stat.S_ISDIR(st.st_mode):
            h.update(f"D{name}\0".encode("utf-8", "surrogateescape"))
            if depth > 0:
                h.update(self._dir_digest(path, depth))
        elif stat.S_ISREG(st.st_mode):
            h.update(f"F{name}\0{st.st_size}\0".encode("utf-8", "surrogateescape"))
            h.update(self.file_digest(path, st))
        else:
            h.update(f"S{name}\0{st.st_mode}\0".encode("utf-8", "surrogateescape"))

    def _dir_digest(self, path: str, depth: int) -> bytes:
        """A directory's entries, ``depth`` levels down (memoised for the run: sibling bundles'
        ``metadata/`` is part of every key of an operator)."""
        got = self._dirs.get((path, depth))
        if got is not None:
            return got
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError:
            entries = []
        index = self._load_index()
        out = []  # one byte string per entry, sorted below (an order that needs no sort key)
        for e in entries:
            try:
                est = e.stat(follow_symlinks=False)
            except OSError:
                out.append(f"?{e.name}\0".encode("utf-8", "surrogateescape"))
                continue
            if stat.S_ISREG(est.st_mode):
                # the common case, inline (75,000 files a catalog): what _entry hashes
                path_ = e.path
                got = index.get(path_)
                sig = stat_signature(est)
                digest = got[1] if got is not None and got[0] == sig else self.file_digest(path_, est)
                out.append(f"F{e.name}\0{est.st_size}\0".encode("utf-8", "surrogateescape") + digest)
                continue
            parts = _Parts()
            self._entry(parts, e.path, e.name, depth - 1, est)
            out.append(b"".join(parts))
        out.sort()
        got = self._dirs[(path, depth)] = hashlib.sha256(b"dir\0" + b"".join(out) + b"/\0").digest()
        return got

    def bundle_digest(self, path: str) -> bytes:
        """The bundle directory: its entries, and the entries of its subdirectories
        (``manifests/``, ``metadata/``: one level, as the loader reads them)."""
        h = hashlib.sha256(b"bundle\0")
        self._entry(h, path, ".", 2)
        return h.digest()

    def operator_inputs(self, repo, operator: Optional[str]) -> bytes:
        """Repository-level files that prepare hooks apply to an operator's bundles
        (``operator``: its directory, the key of ``repo.operators``)."""
        got = self._op_inputs.get(operator)
        if got is not None:
            return got
        h = hashlib.sha256(b"operator\0")
        op = repo.operators.get(operator) if operator else None
        if op is not None:
            name = op.name
            self._entry(h, os.path.join(op.path, "ci.yaml"), "ci.yaml", 0)
            catalogs = os.path.join(os.path.dirname(os.path.dirname(op.path)), "catalogs")
            try:
                releases = sorted(os.listdir(catalogs))
            except OSError:
                releases = []
            for r in releases:
                d = os.path.join(catalogs, r, name)
                if os.path.lexists(d):
                    self._entry(h, d, f"{r}/{name}", 1)
            # bundle rules read every bundle's light facts, from its annotations (model.OperatorContext)
            if self._by_operator is None:
                self._by_operator = {}
                for ref in repo.bundle_refs:
                    self._by_operator.setdefault(ref.operator_dir, []).append(ref)
            for ref in self._by_operator.get(operator, []):
                h.update(ref.rel.encode("utf-8", "surrogateescape") + b"\0")
                self._entry(h, os.path.join(ref.path, "metadata"), "metadata", 1)
        got = self._op_inputs[operator] = h.digest()
        return got

    def run_signature(self, repo, ctx) -> bytes:
        if self._run_sig is None:
            reader = repo.reader
            parts = [f"schema={SCHEMA}", code_digest(), ctx.config.signature(), ctx.ocp.signature(),
                     ctx.profile, repr(ctx.target), getattr(reader, "root", ""), getattr(reader, "display_base", ""),
                     repr(getattr(reader, "extra_roots", ())), repr(repo.is_catalog_repo),
                     repr(sorted(ctx.live() or ()))]  # the releases the target still builds (label rules read them)
            self._run_sig = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).digest()
        return self._run_sig

    def key(self, ref, checked: bool, repo, ctx) -> bytes:
        h = hashlib.sha256(self.run_signature(repo, ctx))
        # a bundle a change list submits is also judged by the pipelines' per-pull-request checks (yaml-lint)
        h.update(f"{ref.rel}\0{ref.operator}\0{ref.version_dir}\0{checked}\0{ctx.submitted(ref.rel)}\0".encode("utf-8", "surrogateescape"))
        h.update(self.operator_inputs(repo, ref.operator_dir))
        h.update(self.bundle_digest(ref.path))
        if ref.operator is None:  # an operator-sdk project's root bundle.Dockerfile is the bundle's (discover.load_ref)
            from ..layout import bundle_dockerfile

            df = bundle_dockerfile(ref.path)
            if df is not None and os.path.dirname(df) != ref.path:
                self._entry(h, df, "../" + os.path.basename(df), 0)
        return h.digest()

    def operator_key(self, key: str, members: list, repo, ctx) -> bytes:
        """An operator's repository-rule findings (``key``: its directory): its name and
        display path, its inputs, every bundle's key, and the change list (which decides what
        is reported)."""
        op = repo.operators[key]
        h = hashlib.sha256(self.run_signature(repo, ctx))
        h.update(f"operator\0{op.name}\0{op.rel}\0{sorted(repo.changed_files) if repo.changed_files is not None else None}\0"
                 .encode("utf-8", "surrogateescape"))
        h.update(self.operator_inputs(repo, key))
        for ref, checked in members:
            h.update(self._keys.get((ref.rel, checked)) or self.key(ref, checked, repo, ctx))
        return h.digest()

    def defer(self, repo, ctx, jobs: int = 1) -> bool:
        """Whether this run's keys are better made where the bundles are checked, after they
        are: when no result was ever stored under this run's signature (a new cache, another
        olm-check version or configuration), nothing can hit, and the worker that reads a
        bundle's files anyway hashes them as it reads (``load.Reader.digests``) instead of
        ``prepare`` reading and hashing every file of the catalog once more before any check
        starts (forked workers only: they inherit this object)."""
        import multiprocessing

        if jobs > 1 and "fork" not in multiprocessing.get_all_start_methods():
            return False
        row = self.db.execute("SELECT 1 FROM runs WHERE sig=?", (self.run_signature(repo, ctx),)).fetchone()
        self.deferred = row is None
        return self.deferred

    def keys_for(self, operator: Optional[str], members: list, repo, ctx, known: dict) -> tuple:
        """In the process that has just checked them (``defer``): the keys of ``members``
        ([(BundleRef, checked)]) and, for an operator (``operator``: its directory), its ``operator_key``, from ``known``
        (the digests of the files read while checking) and whatever else the keys cover;
        with the new file-index entries. The parent adopts them (``adopt``)."""
        worker = os.getpid() != self._pid
        if worker and self.db is not None:  # a forked worker: the parent's connection is not ours
            self.db = None
            self._index, self._index_loaded, self._new_files = {}, True, {}
        self.known = known
        try:
            keys = {}
            for ref, chk in members:
                keys[(ref.rel, chk)] = self._keys[(ref.rel, chk)] = self.key(ref, chk, repo, ctx)
            op = self.operator_key(operator, members, repo, ctx) if operator is not None else None
            new, self._new_files = self._new_files, {}
        finally:
            self.known, self._dirs, self._op_inputs = {}, {}, {}
            if worker:  # memos only: a worker's share of a catalog's files is tens of MB of them
                self._keys, self._index = {}, {}
        return keys, op, new

    def adopt(self, operator: Optional[str], made: tuple) -> None:
        keys, op, new = made
        self._keys.update(keys)
        if op is not None:
            self.operator_keys[operator] = op
        self._new_files.update(new)

    def prepare(self, groups: dict, repo, ctx, jobs: int = 1) -> None:
        """Compute every key of the run up front (``groups``: operator directory or None ->
        [(index, ref, checked)]): bundles' keys and, for operators, ``operator_key``. That reads the
        file index and hashes every new or changed file -- 2.3 GB and tens of MB of transient
        objects on a cold catalog -- so it runs in ``jobs`` forked processes
        (``parallel.in_children``; whole operators each, as their inputs are shared by their
        bundles), which also write the new file digests to the database; this process and
        the workers it forks later never hold them."""
        from .processes import in_children

        parent = os.getpid()
        parts: list = [[] for _ in range(max(1, jobs))]
        sizes = [0] * len(parts)
        for operator, members in sorted(groups.items(), key=lambda g: -len(g[1])):
            i = sizes.index(min(sizes))
            parts[i].append((operator, members))
            sizes[i] += len(members)

        def work(part: list):
            def run():
                if os.getpid() != parent:
                    self.db = sqlite3.connect(self.path, timeout=60)  # never a connection across fork
                keys, ops = {}, {}
                for operator, members in part:
                    for _, ref, chk in members:
                        keys[(ref.rel, chk)] = self._keys[(ref.rel, chk)] = self.key(ref, chk, repo, ctx)
                    if operator is not None:
                        ops[operator] = self.operator_key(operator, [(ref, chk) for _, ref, chk in members], repo, ctx)
                self.flush()
                return keys, ops
            return run

        for keys, ops in in_children([work(p) for p in parts if p]):
            self._keys.update(keys)
            self.operator_keys.update(ops)
        self.release_memos()

    def get_operator(self, key: bytes):
        row = self.db.execute("SELECT data FROM results WHERE key=?", (key,)).fetchone()
        if row is None:
            return None
        try:
            got = decode(row[0])
        except ValueError:  # a damaged or crafted entry is a miss
            return None
        finding = _classes()["F"][0]
        if type(got) is not list or not all(type(f) is finding for f in got):
            return None
        self._used.append(key)
        return got

    def put_operator(self, key: bytes, findings: list) -> None:
        try:
            self._new_results.append((key, encode(findings), time.time()))
        except NotPlainData:  # not cached: checked again next time
            pass

    def release_memos(self) -> None:
        """Drop the run's memos (file digests by stat signature, directory digests) once every
        key is computed: they are tens of MB on a catalog, and forked workers would carry a
        copy. Digests computed later are simply computed again."""
        self.flush()  # the new file digests go to the database now, not at the end
        self._index = {}
        self._index_loaded = True
        self._dirs = {}

    # -- results ------------------------------------------------------------------------------
    def get(self, ref, checked: bool, repo, ctx):
        k = self._keys.get((ref.rel, checked))
        if k is None:
            k = self._keys[(ref.rel, checked)] = self.key(ref, checked, repo, ctx)
        row = self.db.execute("SELECT data FROM results WHERE key=?", (k,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        try:
            res = decode(row[0])
        except ValueError:  # a damaged or crafted entry is a miss
            res = None
        if type(res) is not _classes()["R"][0]:
            self.misses += 1
            return None
        self.hits += 1
        self._used.append(k)
        return res

    def put(self, ref, checked: bool, repo, ctx, result, encoded: Optional[bytes] = None) -> None:
        """Store a result (``encoded``: its ``encode``, when the worker made it). A result
        holding anything but plain data (``NotPlainData``) is not stored."""
        k = self._keys.get((ref.rel, checked)) or self.key(ref, checked, repo, ctx)
        if encoded is None:
            try:
                encoded = encode(result)
            except NotPlainData:
                return
        self._new_results.append((k, encoded, time.time()))
        if len(self._new_results) >= 500:
            self.flush()

    def flush(self) -> None:
        if self._new_files:
            self.db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?)",
                                [(os.fsencode(p), sig, d) for p, (sig, d) in self._new_files.items()])
            self._new_files = {}
        if self._new_results:
            self.db.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?)", self._new_results)
            self._new_results = []
            if self._run_sig is not None:
                self.db.execute("INSERT OR IGNORE INTO runs VALUES (?)", (self._run_sig,))
        self.db.commit()

    def close(self) -> None:
        """Write what is new, mark the results this run used, and drop results no run has
        used for ``MAX_AGE`` (those of older olm-check versions, configurations, contents):
        without it the database grows by a catalog's results (~30 MB) with every version."""
        self.flush()
        now = time.time()
        if self._used:
            self.db.executemany("UPDATE results SET used=? WHERE key=?", [(now, k) for k in self._used])
        self.db.execute("DELETE FROM results WHERE used < ?", (now - MAX_AGE,))
        self.db.commit()
        self.db.close()
