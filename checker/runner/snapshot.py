"""Run snapshots: an unchanged tree, checked again with the same command, is answered with
the report the last run wrote, without planning, loading or checking anything.

``--cache DIR`` keeps, beside the per-bundle results (``checker.cache``), the rendered
report, exit code and step summary of the last 8 runs, each under a key made of:

* the command: subcommand, paths, ``--ocp``, ``--profile``, ``--format``, ``--fail-on``,
  ``--shard``, the config file's path and content (``--config`` or the default
  ``.olm-check.yaml``), the working directory, the repository root and display base the
  paths resolve to, and olm-check's version and code digest;
* the *tree signature*: every entry under the repository root (its ``.git``, the cache
  directory and the ``--output`` file -- unless it is a YAML file -- aside), with its type, size,
  modification and change times (nanoseconds) and inode, and a symlink's target; a file added, removed, renamed, edited or touched changes it.

A file whose change time is within two seconds of the walk (a checkout just made, an editor
saving twice in one clock tick) is not trusted by its times alone, as git does with
"racily clean" index entries: its content's SHA-256 is part of the key too (read at the walk,
before anything is checked). When there are more than ``MAX_RACY`` such files (a fresh
clone), no snapshot is taken; the per-bundle cache still answers the unchanged bundles.

A snapshot is only a faster way to the same answer: any difference in the tree or the
command is a miss, and a miss runs the check as usual. Runs with ``--changed-since`` (which
read git's state) are never snapshotted, nor runs on anything but a whole catalog
repository (its root, holding ``operators/``, among the paths; a bundle or an operator may
read its operator's ``ci.yaml`` and ``catalogs/`` above it, and a walk of the whole repository
would cost more than checking it).
"""
from __future__ import annotations

import hashlib
import json
import marshal
from operator import itemgetter
import os
import sqlite3
import stat
import time
import zlib
from typing import Iterable, Optional

from .cache import Cache, code_digest

SCHEMA = 2  # 2: the racily clean files' digests are stored as JSON (1: marshal, never read now)
KEEP = 8  # snapshots kept (the most recently used)
RACY_NS = 2_000_000_000
MAX_RACY = 2000
MAX_RACY_BYTES = 64 << 20


def tree_signature(root: str, exclude: Iterable[str], jobs: int = 1) -> Optional[tuple]:
    """(SHA-256 of everything under ``root``, the files among them too recent to be trusted
    by their times) (see the module's doc), or None when there are too many of those. With
    ``jobs`` > 1 the walk is shared among that many forked processes (``_walk_parallel``);
    the signature is the same however it is walked."""
    skip = set()
    for p in exclude:  # compared with the walk's paths as they are: no realpath per entry
        skip.add(os.path.abspath(p))
        skip.add(os.path.realpath(p))
    root = os.path.abspath(root)
    skip.add(os.path.join(root, ".git"))  # git's own files: not an input
    recent = time.time_ns() - RACY_NS
    out, racy = _walk_parallel(root, skip, recent, jobs) if jobs > 1 else _walk([root], skip, recent)
    if len(racy) > MAX_RACY or sum(s for _, s in racy) > MAX_RACY_BYTES:
        return None
    out.sort(key=itemgetter(0))  # by directory: the order the walk took does not matter
    h = hashlib.sha256(root.encode("utf-8", "surrogateescape") + b"\0")
    h.update(marshal.dumps(out, 0))  # version 0: no references, no interning (the same bytes for the same data)
    return h.digest(), sorted(p for p, _ in racy)


def content_digests(paths: list) -> list:
    """[(path, SHA-256 of its content)] (the racily clean files of a walk)."""
    return [(p, file_digest(p)) for p in paths]


def _walk_parallel(root: str, skip: set, recent: int, jobs: int) -> tuple:
    """``_walk`` shared among ``jobs`` forked processes (``parallel.in_children``): the
    directories near the root are listed here, breadth first, until there are enough
    subtrees to share out (a catalog's operators/<name>: hundreds), then each process walks
    every ``jobs``-th of them. Stat calls, not hashing, are the cost: 100,000 entries of a
    catalog take ~2 s of one core."""
    from .processes import in_children

    out: list = []
    racy: list = []
    level = [root]
    while level and len(level) < 16 * jobs:
        got, more = _list(level, skip, recent, racy)
        out += got
        level = more
    if not level:
        return out, racy
    parts = [level[i::jobs] for i in range(jobs)]
    for got, late in in_children([lambda part=part: _walk(part, skip, recent) for part in parts]):
        out += got
        racy += late
    return out, racy


def _list(dirs: list, skip: set, recent: int, racy: list) -> tuple:
    """The rows of ``dirs`` (``_walk``'s), and their subdirectories."""
    out: list = []
    sub: list = []
    for d in dirs:
        out.append(_rows(d, skip, recent, racy, sub))
    return out, sub


def _walk(roots: list, skip: set, recent: int) -> tuple:
    """([(directory, entries)], [(racy file, size)]) under the directories ``roots``."""
    out: list = []
    racy: list = []
    stack = list(roots)
    while stack:
        out.append(_rows(stack.pop(), skip, recent, racy, stack))
    return out, racy


def _rows(d: str, skip: set, recent: int, racy: list, subdirs: list) -> tuple:
    """(``d``, its entries) -- its subdirectories appended to ``subdirs``, its racily clean
    files to ``racy`` -- or (``d``, "unreadable", errno)."""
    try:
        with os.scandir(d) as it:
            entries = list(it)
    except OSError as e:
        return (d, "unreadable", e.errno)
    rows = []
    for e in entries:
        path = e.path
        if path in skip:
            continue
        try:
            if e.is_dir(follow_symlinks=False):  # the entry's type: no system call
                # a directory: its listing is walked (its own times add nothing)
                subdirs.append(path)
                rows.append(e.name)
                continue
            st = e.stat(follow_symlinks=False)
        except OSError as err:
            rows.append((e.name, "gone", err.errno))
            continue
        mode = st.st_mode
        rows.append((e.name, mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        if stat.S_ISLNK(mode):
            try:
                rows.append(os.readlink(path))
            except OSError:
                rows.append(None)
        elif st.st_ctime_ns >= recent or st.st_mtime_ns >= recent:
            if stat.S_ISREG(mode):
                racy.append((path, st.st_size))
    return (d, rows)


def file_digest(path: str) -> bytes:
    """SHA-256 of a small file's content (a config file), or of why it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).digest()
    except OSError as e:
        return f"unreadable:{e.errno}".encode()


_TABLE = "CREATE TABLE snapshots (key BLOB PRIMARY KEY, code INTEGER, output BLOB, summary BLOB, racy BLOB, used REAL)"


class Snapshots:
    """The snapshots table of the cache database (opened without loading its file index)."""

    def __init__(self, directory: str):
        os.makedirs(directory, exist_ok=True)
        self.db = sqlite3.connect(os.path.join(directory, Cache.FILE), timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(_TABLE.replace("TABLE", "TABLE IF NOT EXISTS", 1))
        self.db.commit()

    @staticmethod
    def key(command: list, tree: bytes) -> bytes:
        h = hashlib.sha256(f"snapshot={SCHEMA}\0{code_digest()}\0".encode())
        h.update(marshal.dumps(command, 0))
        h.update(tree)
        return h.digest()

    def get(self, key: bytes) -> Optional[tuple]:
        """(exit code, report pieces (an iterator of UTF-8 bytes), step-summary text or None),
        or None. The files that were racily clean when the snapshot's tree was walked must
        still have the content they had then."""
        try:
            row = self.db.execute("SELECT code, output, summary, racy FROM snapshots WHERE key=?", (key,)).fetchone()
        except sqlite3.Error:  # a table of another layout: a miss (put replaces it)
            return None
        if row is None:
            return None
        try:  # plain data only (JSON): what a cache holds must never run when it is read
            racy = [(p, bytes.fromhex(d)) for p, d in json.loads(row[3])]
            if content_digests([p for p, _ in racy]) != racy:
                return None
            summary = zlib.decompress(row[2]).decode("utf-8") if row[2] is not None else None
            if type(row[0]) is not int:
                return None
        except (zlib.error, UnicodeDecodeError, EOFError, ValueError, TypeError, RecursionError):
            return None
        self.db.execute("UPDATE snapshots SET used=? WHERE key=?", (time.time(), key))
        self.db.commit()
        return row[0], _inflate(row[1]), summary

    def put(self, key: bytes, code: int, output: bytes, summary: Optional[str], racy: list) -> None:
        """``output``: the report, zlib-compressed (``Recorder``); ``racy``: ``content_digests``
        of the walk's racily clean files, taken before the run read them."""
        row = (key, code, output, zlib.compress(summary.encode("utf-8"), 1) if summary is not None else None,
               json.dumps([(p, d.hex()) for p, d in racy]), time.time())
        try:
            try:
                self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?, ?)", row)
            except sqlite3.OperationalError:  # a table of another layout
                self.db.execute("DROP TABLE IF EXISTS snapshots")
                self.db.execute(_TABLE)
                self.db.execute("INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?)", row)
            self.db.execute("DELETE FROM snapshots WHERE key NOT IN (SELECT key FROM snapshots ORDER BY used DESC LIMIT ?)", (KEEP,))
            self.db.commit()
        except sqlite3.Error:  # a full disk, a locked database: the run is done, only not kept
            pass

    def close(self) -> None:
        self.db.close()


def _inflate(data: bytes, size: int = 1 << 20):
    """The report's bytes, at most ``size`` at a time (never the whole report at once)."""
    z = zlib.decompressobj()
    while data:
        piece = z.decompress(data, size)
        if piece:
            yield piece
        data = z.unconsumed_tail
    piece = z.flush()
    if piece:
        yield piece


class Recorder:
    """Compresses the report as it is written, piece by piece."""

    def __init__(self):
        self._z = zlib.compressobj(1)
        self._parts: list = []

    def write(self, piece: str) -> None:
        self._parts.append(self._z.compress(piece.encode("utf-8")))

    def done(self) -> bytes:
        self._parts.append(self._z.flush())
        return b"".join(self._parts)
