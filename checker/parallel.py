"""Checking bundles in worker processes.

``map_bundles`` takes ``(index, BundleRef, checked)`` tasks and yields ``(index,
BundleResult)`` as bundles finish (any order). Each worker loads one bundle, checks it,
reduces it to a ``BundleResult`` (findings, facts, ignore-comment lines) and drops it, so a
worker's memory is that of one bundle, whatever the catalog's size. With ``jobs <= 1`` (or a
single task) the same work runs in this process, with no pool to start.

Workers get the planned repository and the context once, when they start: inherited through
``fork`` where the platform has it, pickled to each worker otherwise (``spawn``).
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
from typing import Iterable, Iterator, Optional

_STATE: Optional[tuple] = None  # (repo, ctx) in a worker


def default_jobs() -> int:
    """The CPUs this process may use (affinity and cgroup-limited where the platform says)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, n)


def _init(blob: Optional[bytes]) -> None:
    global _STATE
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


def _work(task: tuple) -> tuple:
    repo, ctx = _STATE
    return check_one(task, repo, ctx)


def map_bundles(tasks: list, repo, ctx, jobs: int = 1) -> Iterator[tuple]:
    """``(index, BundleResult)`` for each task, as they finish."""
    global _STATE
    if not tasks:
        return
    jobs = max(1, min(jobs or 1, len(tasks)))
    if jobs == 1:
        for t in tasks:
            yield check_one(t, repo, ctx)
        return
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods:
        mp = multiprocessing.get_context("fork")
        _STATE = (repo, ctx)  # inherited by the forked workers
        blob = None
    else:  # pragma: no cover - macOS/Windows
        mp = multiprocessing.get_context("spawn")
        blob = pickle.dumps((repo, ctx), protocol=pickle.HIGHEST_PROTOCOL)
    chunk = 1 if len(tasks) < 64 * jobs else 2
    try:
        with mp.Pool(jobs, initializer=_init, initargs=(blob,)) as pool:
            yield from pool.imap_unordered(_work, tasks, chunksize=chunk)
    finally:
        _STATE = None
