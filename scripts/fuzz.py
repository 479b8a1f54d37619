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
    ap.add_argument("--only", choices=("parse", "decode", "files", "check"), action="append",
                    help="run only these properties (repeatable)")
    ap.add_argument("--keep", metavar="DIR", help="copy each mutated case that broke the check into DIR")
    args = ap.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
