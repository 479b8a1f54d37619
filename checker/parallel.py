"""Checking operators and bundles in worker processes.

``map_tasks`` takes tasks -- an operator (``engine.process_operator``: its catalogs, its
bundles one by one, its repository rules) or a bundle outside operators/ -- and yields their
results as they finish (any order). A worker holds one operator's catalogs and one bundle at
a time and drops them, so its memory does not grow with the catalog. With ``jobs <= 1`` (or a
single task) the same work runs in this process, with no pool to start.

Workers get the planned repository and the context once, when they start: inherited through
``fork`` where the platform has it, pickled to each worker otherwise (``spawn``).
"""
from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
from typing import Iterator, Optional

_STATE: Optional[tuple] = None  # (repo, ctx) in a worker
_KEYS = None  # the result cache, when workers make its keys (``cache.Cache.defer``)


# Thresholds of Python's cyclic garbage collector while checking. With the default (700,
# 10, 10) it ran every 700 net allocations, and building a CSV's nodes (tens of thousands of
# objects, nearly all freed by reference counting, never in cycles) set it off again and
# again, each full collection walking every object alive: 2.5 s of 16-23 s on a quarter of
# community-operators-prod, one process, collecting ~600 objects in all. At 50,000 it runs
# some tens of times there instead of thousands, and a full collection hardly ever (0.2 s).
# Memory is unchanged: what reference counting frees is freed at once.
CHECK_GC_THRESHOLDS = (50_000, 10, 10)


@contextlib.contextmanager
def collector_tuned():
    """``CHECK_GC_THRESHOLDS`` while checking (worker processes forked meanwhile inherit
    them), the caller's own thresholds again after."""
    saved = gc.get_threshold()
    gc.set_threshold(*CHECK_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def default_jobs() -> int:
    """The CPUs this process may use (affinity and cgroup-limited where the platform says)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, n)


def _init(blob: Optional[bytes]) -> None:
    global _STATE
    gc.set_threshold(*CHECK_GC_THRESHOLDS)  # spawned workers (forked ones inherit them)
    if blob is not None:
        _STATE = pickle.loads(blob)
    from .rules import load_all

    load_all()
    try:  # workers die with the parent's Ctrl-C, quietly; the parent reports it
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ImportError, ValueError):  # pragma: no cover
        pass


def check_one(task: tuple, repo, ctx) -> tuple:
    """Load, check and reduce one bundle: ``(index, BundleResult)``. Never raises."""
    from .discover import load_ref
    from .engine import BundleResult, _internal, process_bundle
    from .model import BundleFacts

    i, ref, checked = task
    try:
        bundle = load_ref(repo.extra["reader"], ref)
    except Exception as e:  # the loader reports bad files as findings; this is a bug
        facts = BundleFacts(rel=ref.rel, checked=checked, operator=ref.operator, version_dir=ref.version_dir)
        return i, BundleResult(ref.rel, [_internal(ref.rel, load_ref, e)], facts)
    return i, process_bundle(bundle, checked, repo, ctx)


def run_task(task: tuple, repo, ctx, keys=None) -> tuple:
    """``("bundle", (index, ref, checked))`` -> ``("bundle", (index, BundleResult), made)``;
    ``("operator", (name, items))`` -> ``("operator", (name, [(index, BundleResult)],
    repository findings), made)`` (``engine.process_operator``). ``made``: with ``keys`` (the
    result cache, ``cache.Cache.defer``), the cache keys of what was checked
    (``Cache.keys_for``), made from the files as they were read; else None."""
    kind, payload = task
    reader = repo.extra["reader"] if keys is not None else None
    if reader is not None:
        reader.digests = {}
    try:
        if kind == "bundle":
            got = check_one(payload, repo, ctx)
            members, name = [payload[1:3]], None
        else:
            from .engine import _internal, process_operator

            name, items = payload
            members = [(ref, chk) for _, ref, chk, _ in items]
            try:
                out, findings = process_operator(name, items, repo, ctx)
            except Exception as e:  # process_operator reports its own failures; this is a last resort
                out = [check_one((i, ref, chk), repo, ctx) for i, ref, chk, cached in items if cached is None]
                findings = [_internal(name, process_operator, e)]
            got = (name, out, findings)
        made = None
        if reader is not None:
            try:
                made = keys.keys_for(name, members, repo, ctx, reader.digests)
            except Exception:  # noqa: BLE001 - the results are still good; the parent keys them itself
                made = None
    finally:
        if reader is not None:
            reader.digests = None
    return kind, got, made


def _pack(res) -> tuple:
    """A ``BundleResult`` as a worker sends it: (True, its ``cache.encode``: plain data, what
    the result cache stores, so the parent does not encode it again) or, for a result that
    holds something else, (False, its pickle: sent, never stored)."""
    from .cache import NotPlainData, encode

    try:
        return True, encode(res)
    except NotPlainData:
        return False, pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL)


def _work(task: tuple) -> tuple:
    """``run_task`` in a worker, each ``BundleResult`` packed here (``_pack``)."""
    repo, ctx = _STATE
    kind, payload, made = run_task(task, repo, ctx, _KEYS)
    if kind == "bundle":
        i, res = payload
        return kind, (i, _pack(res)), made
    name, out, findings = payload
    return kind, (name, [(i, _pack(res)) for i, res in out], findings), made


def _results(pairs: list) -> list:
    """[(index, BundleResult, its cache encoding or None)] from a worker's [(index, _pack)]:
    what a worker of this run sent (a pickle only from a worker, never from storage)."""
    from .cache import decode

    return [(i, decode(blob, check=False), blob) if plain else (i, pickle.loads(blob), None) for i, (plain, blob) in pairs]


def map_tasks(tasks: list, repo, ctx, jobs: int = 1, keys=None) -> Iterator[tuple]:
    """For each task, as they finish (in worker processes when ``jobs`` > 1): ``("bundle",
    [(index, BundleResult, encoded or None)], [], None, made)`` or ``("operator", [...],
    repository findings, name, made)`` -- ``encoded``: its ``cache.encode``, made in the
    worker, when there is one;
    ``made``: with ``keys`` (the result cache, when ``Cache.defer`` said so), the cache keys
    made where the task ran (``run_task``)."""
    global _STATE, _KEYS
    if not tasks:
        return
    jobs = max(1, min(jobs or 1, len(tasks)))
    if jobs == 1:
        for t in tasks:
            kind, payload, made = run_task(t, repo, ctx, keys)
            if kind == "bundle":
                yield kind, [payload + (None,)], [], None, made
            else:
                name, out, findings = payload
                yield kind, [(i, res, None) for i, res in out], findings, name, made
        return
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        mp = multiprocessing.get_context("fork")
        _STATE = (repo, ctx)  # inherited by the forked workers
        _KEYS = keys
        blob = None
    else:  # pragma: no cover - macOS/Windows
        mp = multiprocessing.get_context("spawn")
        blob = pickle.dumps((repo, ctx), protocol=pickle.HIGHEST_PROTOCOL)
    # what exists now is inherited by forked workers: out of the collector's sight, so that
    # collections in a worker do not write to (and so copy) the pages it shares with us
    gc.freeze()
    try:
        with mp.Pool(jobs, initializer=_init, initargs=(blob,)) as pool:
            gc.unfreeze()
            for kind, payload, made in pool.imap_unordered(_work, tasks, chunksize=1):
                if kind == "bundle":
                    yield kind, _results([payload]), [], None, made
                else:
                    name, out, findings = payload
                    yield kind, _results(out), findings, name, made
    finally:
        gc.unfreeze()
        _STATE = _KEYS = None


def in_children(works: list, fallback: bool = True) -> list:
    """``[work() for work in works]``, each computed in a forked process of its own, side by
    side, and sent back (marshal: plain data only), so that what they allocate on the way
    -- tens of MB of file-index dictionaries and hashing buffers for a catalog's cache keys
    -- is not left in this process (freed Python memory is seldom returned to the system)
    nor inherited by the workers forked after. Without ``fork``, or for a child that fails,
    ``work()`` runs here (``fallback``) or gives None."""
    import marshal

    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return [w() if fallback else None for w in works]
    children = []
    for work in works:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, and exit without running anything of the parent's
            code = 1
            try:
                os.close(r)
                for _, other, _ in children:
                    os.close(other)
                data = marshal.dumps(work(), 4)
                with os.fdopen(w, "wb") as fh:
                    fh.write(data)
                code = 0
            except BaseException:  # noqa: BLE001 - reported as a failure below
                pass
            finally:
                os._exit(code)
        os.close(w)
        children.append((pid, r, work))
    out = []
    for pid, r, work in children:  # in order: a child done early waits on its pipe meanwhile
        with os.fdopen(r, "rb") as fh:
            data = fh.read()
        _, status = os.waitpid(pid, 0)
        got = None
        if status == 0:
            try:
                got = marshal.loads(data)
            except (EOFError, ValueError, TypeError):
                got = None
        if got is None and fallback:
            got = work()
        out.append(got)
    return out
