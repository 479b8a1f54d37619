#!/usr/bin/env python3
"""Fuzz olm-check for longer than the test suite does.

Runs the hypothesis properties of tests/test_fuzz.py (the loader on random YAML-ish text and
bytes, the reader on mutated fixture files, the whole check on mutated fixture bundles and
catalog trees) in rounds of N examples each, with fresh random seeds, until the number of
rounds or the time budget is used up. A failure does not stop the run: it is printed (with
hypothesis' minimal falsifying example) and counted, and with --keep DIR the mutated case
that broke the whole check is copied there to reproduce it with `olm-check check`.

    .venv/bin/python scripts/fuzz.py --minutes 30 --examples 500 --keep /tmp/fuzz-failures
    .venv/bin/python scripts/fuzz.py --rounds 1 --examples 2000 --only check
    .venv/bin/python scripts/fuzz.py --sweep     # every value of the good bundle, each wrong type

Prints, per round and at the end, the number of cases run and the failures found.
"""
import argparse
import os
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=500, help="examples per property per round (default 500)")
    ap.add_argument("--rounds", type=int, default=0, help="stop after this many rounds (0: until --minutes)")
    ap.add_argument("--minutes", type=float, default=10.0, help="time budget (default 10; 0: until --rounds)")
    ap.add_argument("--only", choices=("parse", "decode", "files", "check", "config"), action="append",
                    help="run only these properties (repeatable)")
    ap.add_argument("--keep", metavar="DIR", help="copy each mutated case that broke the check into DIR")
    ap.add_argument("--sweep", action="store_true",
                    help="instead: replace every value of the good bundle's files, one at a time, by each of "
                         "a few wrong types ([], {}, text, number, null, true) and check each result")
    ap.add_argument("--max-memory-gib", type=float, default=4.0,
                    help="address-space limit of this process (default 4): a runaway case is a MemoryError "
                         "reported as a failure, not the machine's out-of-memory killer")
    args = ap.parse_args(argv)
    try:
        import resource

        limit = int(args.max_memory_gib * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not on this platform
        pass
    if args.sweep:
        return sweep(args.keep)
    if args.rounds <= 0 and args.minutes <= 0:
        ap.error("give --rounds or --minutes")

    from hypothesis import HealthCheck, given, settings

    import test_fuzz as tf

    cfg = settings(max_examples=args.examples, deadline=None, database=None, derandomize=False, print_blob=True,
                   suppress_health_check=list(HealthCheck))
    tf.KEEP["dir"] = args.keep
    props = {name: cfg(given(**strategies)(fn)) for name, (fn, strategies) in tf.PROPERTIES.items()}
    chosen = args.only or list(props)
    start = time.monotonic()
    failures = 0
    per = {name: 0 for name in chosen}
    rnd = 0
    while True:
        rnd += 1
        for name in chosen:
            before = tf.STATS["cases"]
            try:
                props[name]()
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # a property failed: report it and go on
                failures += 1
                print(f"round {rnd} {name}: FAILURE {type(e).__name__}", flush=True)
                traceback.print_exception(e, limit=-3, file=sys.stdout)
            per[name] += tf.STATS["cases"] - before
        elapsed = time.monotonic() - start
        print(f"round {rnd}: {tf.STATS['cases']} cases ({', '.join(f'{k} {v}' for k, v in per.items())}), "
              f"{failures} failure(s), {elapsed / 60:.1f} min", flush=True)
        if args.rounds and rnd >= args.rounds:
            break
        if args.minutes and elapsed >= args.minutes * 60:
            break
    print(f"total: {tf.STATS['cases']} cases run, {failures} failure(s)")
    return 1 if failures else 0


CONFUSERS = ([], {}, "text", 42, None, True, [{"a": 1}], "")


def sweep(keep) -> int:
    """Type confusion at every node: for each file of fixtures/bundles/good and each value in
    it (every mapping value and list item), write the file with that value replaced by each of
    CONFUSERS, check the bundle, and count exceptions and internal errors."""
    import json
    import shutil
    import tempfile

    import yaml

    from checker.api import check
    from checker.report import render
    from checker.rules import RULES

    import test_fuzz as tf

    good = os.path.join(ROOT, "fixtures", "bundles", "good")
    cases = failures = 0
    start = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="olm-check-sweep-")
    cwd = os.getcwd()
    try:
        root = os.path.join(tmp, "bundle")
        shutil.copytree(good, root)
        os.chdir(root)
        for rel in tf._case_files(good):
            p = os.path.join(root, rel)
            with open(p, encoding="utf-8") as fh:
                original = fh.read()
            try:
                docs = list(yaml.safe_load_all(original))
            except yaml.YAMLError:
                continue
            for d, doc in enumerate(docs):
                for path in list(tf._paths(doc)):
                    if not path:
                        continue
                    for value in CONFUSERS:
                        changed = json.loads(json.dumps(docs))
                        node = changed[d]
                        for k in path[:-1]:
                            node = node[k]
                        node[path[-1]] = value
                        with open(p, "w", encoding="utf-8") as fh:
                            fh.write(yaml.safe_dump_all(changed, sort_keys=False))
                        cases += 1
                        where = f"{rel} {'.'.join(map(str, path))} = {json.dumps(value)}"
                        try:
                            res = check(["."])
                            for fmt in ("text", "json", "sarif", "github"):
                                render(fmt, res.report, res.findings, RULES)
                            bad = [f.message for f in res.findings if f.rule == "internal-error"]
                        except Exception as e:  # noqa: BLE001 - counting crashes is the point
                            bad = [f"{type(e).__name__}: {e}"]
                        if bad:
                            failures += 1
                            print(f"FAILURE {where}: {bad[0]}", flush=True)
                            tf._keep(root, keep)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(original)
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"sweep: {cases} cases run, {failures} failure(s), {(time.monotonic() - start) / 60:.1f} min")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
