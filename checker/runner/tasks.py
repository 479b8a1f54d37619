"""What one task of a run does, in the process running it: load a bundle, or an operator's
context and bundles, and hand them to the core (``checker.engine``)."""
from __future__ import annotations

import dataclasses

from .. import engine
from ..discover import load_ref, operator_context
from ..context import Context
from ..engine import check_operator, internal
from ..model import BundleFacts, OperatorContext, Repository


def check_one(task: tuple, repo, ctx) -> tuple:
    """Load one bundle and hand it to the core (``engine.check_bundle``, with ``ctx.operator``
    its operator's context): ``(index, BundleResult)``. Never raises."""
    i, ref, checked = task
    try:
        bundle = load_ref(repo.reader, ref)
    except Exception as e:  # the loader reports bad files as findings; this is a bug
        facts = BundleFacts(rel=ref.rel, checked=checked, operator=ref.operator, version_dir=ref.version_dir)
        return i, engine.BundleResult(ref.rel, [engine.internal(ref.rel, load_ref, e)], facts)
    return i, engine.check_bundle(bundle, ctx, checked)


def process_operator(key: str, items: list, repo: Repository, ctx: Context) -> tuple:
    """One operator (``key``: its directory, the key of ``repo.operators``), start to end,
    in the process running it: its context is read
    (``discover.operator_context``: ci.yaml, file-based catalogs, every bundle's light
    facts), each bundle without a cached result is loaded and checked (``engine.check_bundle``)
    and dropped, then the repository rules run on the operator's facts
    (``engine.check_operator``); the context is dropped after. ``items``: [(index,
    BundleRef, checked, cached BundleResult or None)]. Returns ([(index, BundleResult)] of
    the bundles checked here, raw repository findings)."""
    refs = [it[1] for it in items]
    findings = []
    op = repo.operators[key]
    try:
        octx = operator_context(repo, key, refs)
    except Exception as e:
        findings.append(internal(op.rel, operator_context, e))
        octx = OperatorContext(name=op.name, operator=op, refs=refs)
    out, facts = [], []
    ctx = dataclasses.replace(ctx, repo=repo, operator=octx)
    for i, ref, checked, cached in items:
        res = cached
        if res is None:
            res = check_one((i, ref, checked), repo, ctx)[1]
            out.append((i, res))
        if res.facts is not None:
            facts.append(res.facts)
    findings += check_operator(facts, ctx)
    return out, findings


def run_task(task: tuple, repo, ctx, keys=None) -> tuple:
    """``("bundle", (index, ref, checked))`` -> ``("bundle", (index, BundleResult), made)``;
    ``("operator", (key, items))`` -> ``("operator", (key, [(index, BundleResult)],
    repository findings), made)`` (``process_operator``; ``key``: the operator's directory). ``made``: with ``keys`` (the
    result cache, ``cache.Cache.defer``), the cache keys of what was checked
    (``Cache.keys_for``), made from the files as they were read; else None."""
    kind, payload = task
    reader = repo.reader if keys is not None else None
    if reader is not None:
        reader.digests = {}
    try:
        if kind == "bundle":
            got = check_one(payload, repo, ctx)
            members, name = [payload[1:3]], None
        else:
            name, items = payload
            members = [(ref, chk) for _, ref, chk, _ in items]
            try:
                out, findings = process_operator(name, items, repo, ctx)
            except Exception as e:  # process_operator reports its own failures; this is a last resort
                out = [check_one((i, ref, chk), repo, ctx) for i, ref, chk, cached in items if cached is None]
                op = repo.operators.get(name)
                findings = [internal(op.rel if op is not None else name, process_operator, e)]
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


