"""Process-level helpers of the runner: the collector's thresholds while checking, the CPUs
a run may use, work done in forked children."""
from __future__ import annotations

import contextlib
import gc
import os


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
    children: list = []
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
