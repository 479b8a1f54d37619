"""Checking operators and bundles in worker processes.

``map_tasks`` takes tasks -- an operator (``tasks.process_operator``: its context, its
bundles one by one, its repository rules) or a bundle outside operators/ -- and yields their
results as they finish (any order). A worker holds one operator's catalogs and one bundle at
a time and drops them, so its memory does not grow with the catalog. With ``jobs <= 1`` (or a
single task) the same work runs in this process, with no pool to start.

Workers get the planned repository and the context once, when they start: inherited through
``fork`` where the platform has it, pickled to each worker otherwise (``spawn``).
"""
from __future__ import annotations

import gc
import multiprocessing
import pickle
from typing import Iterator, Optional

from .processes import CHECK_GC_THRESHOLDS
from .tasks import run_task

_STATE: Optional[tuple] = None  # (repo, ctx) in a worker
_KEYS = None  # the result cache, when workers make its keys (``cache.Cache.defer``)


def _init(blob: Optional[bytes]) -> None:
    global _STATE
    gc.set_threshold(*CHECK_GC_THRESHOLDS)  # spawned workers (forked ones inherit them)
    if blob is not None:
        _STATE = pickle.loads(blob)
    from ..rules import load_all

    load_all()
    try:  # workers die with the parent's Ctrl-C, quietly; the parent reports it
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ImportError, ValueError):  # pragma: no cover
        pass


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
