#!/usr/bin/env python3
"""Check the alm-examples-schema rule's lazy view of CRD schemas against PyYAML, on a catalog.

    python scripts/verify_schema_view.py /path/to/community-operators-prod [--jobs 2] [--limit N]

Not a test: it prints numbers, and exits 1 on any difference. Every bundle below the paths
is loaded as olm-check loads it; every CRD version's ``openAPIV3Schema`` that the loader
skipped (``load.SKIP_KEYS``) is cut out of its file as the rule cuts it
(``alm_examples_schema._schema_source``), and each distinct YAML text is read both ways:

* the reference: PyYAML's ``yaml.load`` with ``CSafeLoader`` (YAML 1.1, as the API server's
  YAML decoder), None when it refuses the text;
* the rule's data: ``_parse_schema``, a lazy view over rapidyaml's tree (``_lazy_schema``)
  read through completely (``_full``), or PyYAML's data where the view falls back
  (``_Fallback``, up front or while reading through).

The two are compared type-exactly (1, 1.0 and True differ, str and datetime differ) and in
key order. JSON schemas (``json.loads``, unchanged) are counted but not compared.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import sys
import time
from collections import Counter
from multiprocessing import Pool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def schema_texts(paths: list, limit: int):
    """Distinct YAML schema texts (the rule's cut) of every CRD version in the bundles."""
    from checker.discover import find_bundle_dirs
    from checker.load import Reader, load_bundle
    from checker.rules.alm_examples_schema import _schema_source, _targets

    seen = set()
    counts = Counter()
    for p in paths:
        reader = Reader(p, p)
        for b in find_bundle_dirs(p):
            counts["bundles"] += 1
            try:
                bundle = load_bundle(reader, b)
                targets = _targets(bundle)
            except Exception as e:  # noqa: BLE001 - a script: say so and go on
                print(f"  cannot load {b}: {e}")
                continue
            for t in targets.values():
                src = _schema_source(t.sf, t.schema_node)
                if src is None:
                    counts["no text (built by the loader, or none)"] += 1
                    continue
                key = hashlib.sha1(src[1].encode("utf-8", "surrogatepass")).digest()
                if key in seen:
                    continue
                seen.add(key)
                counts[src[0]] += 1
                if src[0] == "yaml":
                    yield src[1], counts
                    if limit and counts["yaml"] >= limit:
                        return
    yield None, counts


def same(a, b, path="") -> str:
    """'' when ``a`` and ``b`` are the same data, type for type and key order; else where not."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r:.60} vs {type(b).__name__} {b!r:.60}"
    if isinstance(a, dict):
        ka, kb = list(a), list(b)
        if len(ka) != len(kb) or any(type(x) is not type(y) or x != y for x, y in zip(ka, kb)):
            return f"{path}: keys {ka[:8]!r:.120} vs {kb[:8]!r:.120}"
        for k in ka:
            d = same(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return ""
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{path}[{i}]")
            if d:
                return d
        return ""
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return ""
    if a != b or (isinstance(a, float) and math.copysign(1, a) != math.copysign(1, b)):
        return f"{path}: {a!r:.80} vs {b!r:.80}"
    return ""


def check(text: str) -> tuple:
    """(outcome, difference or '', seconds of the view, seconds of PyYAML) for one text."""
    from checker.rules import alm_examples_schema as r

    t0 = time.perf_counter()
    try:
        view = r._lazy_schema(text)
        how = "lazy"
    except (r._Fallback, UnicodeError):
        view, how = None, "fallback up front"
    t1 = time.perf_counter()
    if view is not None:
        try:
            got = r._full(view)
        except r._Fallback:
            got, how = None, "fallback while reading"
    t2 = time.perf_counter()
    want = r._pyyaml(text)
    t3 = time.perf_counter()
    if how != "lazy":
        got = want  # the rule reads it by PyYAML: the same by construction
    return how, same(got, want), t1 - t0, t2 - t1, t3 - t2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="stop after this many distinct YAML schemas")
    args = ap.parse_args()
    outcomes, diffs = Counter(), []
    t_parse = t_force = t_pyyaml = 0.0
    chars = 0
    start = time.time()
    counts: Counter = Counter()
    batch: list = []

    def run(pool):
        nonlocal t_parse, t_force, t_pyyaml
        results = pool.map(check, batch, chunksize=4) if pool else list(map(check, batch))
        for text, (how, diff, a, b, c) in zip(batch, results):
            outcomes[how] += 1
            t_parse += a
            t_force += b
            t_pyyaml += c
            if diff:
                diffs.append((text, diff))
                print(f"  DIFFERENT ({how}): {diff}\n    text starts: {text[:200]!r}")
        batch.clear()

    pool = Pool(args.jobs) if args.jobs > 1 else None
    try:
        for text, _counts in schema_texts(args.paths, args.limit):
            if text is None:
                break
            batch.append(text)
            chars += len(text)
            if len(batch) >= 64:
                run(pool)
        run(pool)
    finally:
        if pool:
            pool.close()
    print(f"verify-schema-view: {counts['bundles']} bundles; distinct schema texts: {counts['yaml']} YAML "
          f"({chars / 1e6:.0f} MB), {counts['json']} JSON (not compared)")
    print(f"verify-schema-view: {dict(outcomes)}; differences: {len(diffs)}")
    print(f"verify-schema-view: CPU seconds, summed over workers: rapidyaml parse + text checks {t_parse:.1f}, "
          f"reading every node through {t_force:.1f}, PyYAML (reference) {t_pyyaml:.1f}; wall {time.time() - start:.0f} s")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
