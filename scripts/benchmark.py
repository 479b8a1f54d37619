#!/usr/bin/env python3
"""Benchmark olm-check on a directory of many bundles (e.g. a community-operators-prod checkout).

    python scripts/benchmark.py /path/to/community-operators-prod            # everything
    python scripts/benchmark.py /path/to/catalog --sample 40                  # 40 operators, spread out
    python scripts/benchmark.py /path/to/catalog --modes floor,cold,warm,single --jobs 2 [--repeat 3]
    python scripts/benchmark.py /path/to/catalog --verify                     # fast YAML path == full parse

Not a test: it prints numbers. In one run, it measures

* floor  -- the same YAML files loaded with ``yaml.load_all`` and libyaml's C loader
            (``CSafeLoader``), in one process: the cost of merely reading them into Python;
* ryml   -- the same YAML files parsed by rapidyaml (``ryml.parse_in_arena``, C++), in one
            process: the parse floor the cold audit is measured against (its ratio to it);
* cparse -- the same files parsed as the audit parses them (``checker.yamlload.parse``, with
            the C accelerator and the loader's skipped keys), each distinct content once per
            operator directory as the audit's parse memo reads them, in one process: what the
            reference parser (libyaml) alone costs the audit, so half of it (two cores) is as
            near the ryml floor as a cold audit can come while libyaml reads every distinct byte;
* cold   -- ``olm-check audit`` from process start to exit, with an empty result cache
            (``--cache`` being filled), ``--jobs N`` workers;
* pure   -- the cold audit again with ``OLM_CHECK_PURE_YAML=1``: without the C accelerator
            (``checker._cnodes``), as an install without a compiler runs; its report is
            compared with the cold one (the findings must be the same);
* warm   -- the same again: the tree is unchanged, so the run snapshot answers it;
* touched -- the same after one CSV's modification time was set to now (its content kept):
            the snapshot misses and the per-bundle cache answers every bundle, the touched
            file hashed again (a pull request's re-check goes this way, plus its bundles);
* rehash -- the same with the cache's file index and snapshots dropped, as on a fresh clone
            with the cache restored (CI): every file hashed, every bundle answered by the cache;
* single -- ``olm-check check`` on one bundle (a typical pull request), process start to exit;
* pr     -- a one-bundle pull request on a git checkout: ``olm-check check . --changed-since``
            the PR's parent, no cache, process start to exit, beside ``olm-check check`` of that
            bundle's operator directory and the whole audit (no cache either) in the same run.
            The PR adds the bundle (``--bundle``, default one from the middle): its parent is
            made from HEAD's tree without it, in a scratch git directory that borrows the
            checkout's objects and index (``GIT_DIR``), so the checkout itself is left alone;

each with wall seconds, bundles/s, CPU seconds (user + system of the process tree: the
work done, which the machine's other load skews less than the wall time) and the peak memory of the whole process tree (the sum of
the resident set sizes of olm-check and its workers, sampled every 20 ms; PSS, which counts
pages shared by forked workers once, sampled every 0.5 s, and the largest single process,
alongside), and the
ratios to the floor. The page
cache is warmed before each measurement (every file read once, untimed) so that no
measurement pays for the disk: some virtual machines' kernels page out file pages left
idle for a while (DAMON's pageout), so one warming at the start is not enough. ``--verify``
parses every file holding a skipped key (CRD schemas, CSV descriptors) both ways (``checker.fastyaml`` and
the full ``yamlload.parse``) and reports any difference in documents or problems.

Other processes on the machine skew wall times: the script prints the load average at the
start and the end so that you can tell.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

YAML_SUFFIXES = (".yaml", ".yml")


def bundle_dirs(paths: list) -> list:
    from checker.discover import find_bundle_dirs

    out = []
    for p in paths:
        out += find_bundle_dirs(p)
    return out


def yaml_files(root: str, paths: list, bundles: list) -> list:
    """The YAML files olm-check reads: bundles' manifests/ and metadata/, operators' ci.yaml,
    and the file-based catalogs of those operators."""
    files = []
    ops = set()
    for b in bundles:
        for sub in ("manifests", "metadata"):
            d = os.path.join(b, sub)
            if os.path.isdir(d):
                files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(YAML_SUFFIXES))
        parent = os.path.dirname(b)
        if os.path.basename(os.path.dirname(parent)) == "operators":
            ops.add(parent)
    for op in sorted(ops):
        ci = os.path.join(op, "ci.yaml")
        if os.path.isfile(ci):
            files.append(ci)
        files += sorted(glob.glob(os.path.join(root, "catalogs", "*", os.path.basename(op), "*.yaml")))
    return [f for f in files if os.path.isfile(f)]


def warm_page_cache(files: list) -> int:
    n = 0
    for f in files:
        with open(f, "rb") as fh:
            n += len(fh.read())
    return n


def one_process(files: list, parse) -> tuple:
    """``parse(path, data)`` of every file in this process: (seconds, files it refused -- it
    raised --, CPU seconds)."""
    failed = 0
    t = time.perf_counter()
    cpu = time.process_time()
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        try:
            parse(f, data)
        except Exception:  # noqa: BLE001 - every parser refuses some real files (e.g. `- =`)
            failed += 1
    return time.perf_counter() - t, failed, time.process_time() - cpu


def floor(files: list) -> tuple:
    import yaml

    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        sys.exit("PyYAML has no libyaml C loader here; the floor would not be the C loader")

    def load(_f, data):
        for _ in yaml.load_all(data, Loader=loader):
            pass
    return one_process(files, load)


def floor_ryml(files: list) -> tuple:
    """rapidyaml's parse of every file, in one process: (seconds, files it refuses, CPU seconds)."""
    try:
        import ryml
    except ImportError:
        sys.exit("rapidyaml (ryml) is not installed; the ryml floor needs it")
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(2)
    os.dup2(devnull, 2)  # rapidyaml prints its parse errors on stderr
    try:
        return one_process(files, lambda _f, data: ryml.parse_in_arena(data))
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def parse_c(files: list) -> Optional[tuple]:
    """The audit's own parse (C accelerator, skipped keys) of each distinct content once per
    operator directory, in one process: (seconds, files parsed, CPU seconds), or None when the
    accelerator is not built."""
    import hashlib

    from checker import yamlload
    from checker.load import SKIP_KEYS

    if not yamlload.ACCELERATED:
        return None
    seen: set = set()
    parsed = [0]

    def parse(f, data):
        parts = f.split(os.sep)
        # the operator directory (operators/<name>/...) or the catalog's file, as the audit's workers split them
        op = os.sep.join(parts[:parts.index("operators") + 2]) if "operators" in parts[:-2] else os.path.dirname(f)
        key = (op, hashlib.sha256(data).digest())
        if key in seen:
            return
        seen.add(key)
        text, _problem = yamlload.decode(data)
        if text is not None:
            yamlload.parse(text, None, SKIP_KEYS)
            parsed[0] += 1
    secs, _failed, cpu = one_process(files, parse)
    return secs, parsed[0], cpu


class TreeMemory(threading.Thread):
    """Peak RSS and PSS (KiB) summed over a process and its descendants."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak_rss, self.peak_pss, self.stop = pid, 0, 0, False
        self.peak_one = 0  # the largest single process's RSS

    def _children(self) -> dict:
        """Parent PID -> child PIDs, for the processes started after the measured one (its
        descendants get later PIDs; reading every process's stat 50 times a second took 2.8
        ms a sample, 12% of a core taken from the run it measures)."""
        kids = {}
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) <= self.pid:
                continue
            try:
                with open(f"/proc/{d}/stat") as fh:
                    st = fh.read()
                ppid = int(st[st.rindex(")") + 2:].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
        return kids

    @staticmethod
    def _field(path: str, name: str) -> int:
        try:
            with open(path) as fh:
                for line in fh:
                    if line.startswith(name):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def sample(self, pss: bool) -> None:
        kids = self._children()
        tree, todo = [], [self.pid]
        while todo:
            p = todo.pop()
            tree.append(p)
            todo += kids.get(p, [])
        each = [self._field(f"/proc/{p}/status", "VmRSS:") for p in tree]
        rss = sum(each)
        self.peak_one = max([self.peak_one] + each)
        self.peak_rss = max(self.peak_rss, rss)
        if pss:
            self.peak_pss = max(self.peak_pss, sum(self._field(f"/proc/{p}/smaps_rollup", "Pss:") for p in tree))

    def run(self) -> None:
        # RSS every 20 ms; PSS every 0.5 s: reading smaps_rollup walks the measured process's
        # page tables under its memory-map lock, and at 50 times a second it slowed a cold
        # catalog audit by ~15 s (page faults waiting on the lock)
        n = 0
        while not self.stop:
            self.sample(n % 25 == 0)
            n += 1
            time.sleep(0.02)


CODE = ROOT  # where `python -m checker` is imported from (a frozen copy: see main)


def timed(cmd: list, cwd: str, extra_env: dict = None) -> dict:
    import resource

    env = dict(os.environ, PYTHONPATH=CODE + os.pathsep + os.environ.get("PYTHONPATH", ""), **(extra_env or {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    mem = TreeMemory(proc.pid)
    mem.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the tree: workers are reaped by their parent
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    mem.stop = True
    mem.join()
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err}")
    if "Traceback" in err:
        sys.exit(f"traceback from {' '.join(cmd)}:\n{err}")
    return {"wall": wall, "cpu": cpu, "rss_mib": mem.peak_rss / 1024, "pss_mib": mem.peak_pss / 1024, "one_mib": mem.peak_one / 1024}


def pr_git_dir(root: str, bundle: str) -> tuple:
    """A scratch git directory for ``root`` (a git checkout) in which HEAD is a commit adding
    ``bundle`` to a parent that lacks it: (git dir, parent sha). Borrows the checkout's objects
    (alternates) and index (copied: the work tree is HEAD's, so status stays clean and
    cheap); writes nothing into the checkout."""
    real = subprocess.run(["git", "-C", root, "rev-parse", "--absolute-git-dir"], capture_output=True, text=True, check=True).stdout.strip()
    scratch = tempfile.mkdtemp(prefix="olm-check-bench-git-")
    git = os.path.join(scratch, "git")
    subprocess.run(["git", "init", "-q", "--bare", git], check=True)
    with open(os.path.join(git, "objects", "info", "alternates"), "w") as fh:
        fh.write(os.path.join(real, "objects") + "\n")
    shutil.copyfile(os.path.join(real, "index"), os.path.join(git, "index"))
    env = dict(os.environ, GIT_DIR=git, GIT_WORK_TREE=root, GIT_INDEX_FILE=os.path.join(scratch, "parent-index"),
               GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.com")

    def out(*args):
        return subprocess.run(["git", *args], env=env, capture_output=True, text=True, check=True).stdout.strip()

    head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    out("read-tree", head)
    out("rm", "-r", "-q", "--cached", os.path.relpath(bundle, root))
    parent = out("commit-tree", out("write-tree"), "-p", head, "-m", "the pull request's parent")
    tip = out("commit-tree", f"{head}^{{tree}}", "-p", parent, "-m", "the pull request: one bundle")
    out("update-ref", "HEAD", tip)
    return git, parent


def verify(files: list) -> None:
    """Fast path vs full parse on every file holding a skipped key."""
    from checker import fastyaml
    from checker.load import SKIP_KEYS
    from checker.yamlload import decode, parse

    diffs = 0
    n = 0
    t_fast = t_full = 0.0
    for f in files:
        with open(f, "rb") as fh:
            text, problem = decode(fh.read())
        if text is None or not any(k in text for k in SKIP_KEYS):
            continue
        n += 1
        t = time.perf_counter()
        got = fastyaml.parse_fast(text, None, SKIP_KEYS)
        t_fast += time.perf_counter() - t
        t = time.perf_counter()
        want = parse(text, None, SKIP_KEYS)
        t_full += time.perf_counter() - t
        if got is None:
            continue
        if tree_key(got[0]) != tree_key(want[0]) or [vars(p) for p in got[1]] != [vars(p) for p in want[1]]:
            diffs += 1
            print(f"  DIFFERENT: {f}")
    print(f"verify: {n} files with a skipped key (CRD schemas, CSV descriptors); fast path taken for {fastyaml.STATS['fast']}, "
          f"fallbacks {dict((k, v) for k, v in fastyaml.STATS.items() if k != 'fast')}; differences: {diffs}")
    print(f"verify: parse time with the fast path (fallbacks included) {t_fast:.1f} s, full parse {t_full:.1f} s")
    if diffs:
        sys.exit(1)


def tree_key(docs) -> list:
    """Every node depth first, for exact comparison: kind, position, text, style, tag, the
    value's type and repr, the mapping index (key -> pair), and which nodes are the same
    object (alias targets). tests/test_cnodes.py and tests/test_scale.py compare trees with it."""
    from checker.nodes import Mapping, Scalar, Sequence, Skipped

    out, seen = [], {}
    stack = list(reversed(docs))
    while stack:
        n = stack.pop()
        if n is None:
            out.append(None)
            continue
        if id(n) in seen:
            out.append(("same as", seen[id(n)]))
            continue
        seen[id(n)] = len(seen)
        if isinstance(n, Scalar):
            out.append(("s", n.line, n.col, n.raw, n.style, n.tag, type(n.value).__name__, repr(n.value)))
        elif isinstance(n, Mapping):
            # a key that is not a scalar is indexed by its id(): by its place among the pairs here
            ids = {id(k): j for j, (k, _) in enumerate(n.pairs) if not isinstance(k, Scalar)}
            index = [(("pair", ids[k]) if type(k) is int and k in ids else (type(k).__name__, repr(k)), i)
                     for k, i in n._index.items()]
            out.append(("m", n.line, n.col, len(n.pairs), index))
            for k, v in reversed(n.pairs):
                stack += [v, k]
        elif isinstance(n, Sequence):
            out.append(("q", n.line, n.col, len(n.items)))
            stack += list(reversed(n.items))
        elif isinstance(n, Skipped):
            out.append(("k", n.line, n.col, n.shape))
        else:
            out.append(("?", type(n).__name__))
    return out


def pr_mode(root: str, one: str, jobs: int, files: list) -> None:
    """The ``pr`` measurement (see the module docstring): a one-bundle pull request, the
    operator directory and the whole audit, no cache, in this order."""
    if os.path.basename(os.path.dirname(os.path.dirname(one))) != "operators":
        print("pr     (skipped: the bundle is not in operators/<name>/<version>/)")
        return
    if subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        print("pr     (skipped: not a git checkout with a commit)")
        return
    git, parent = pr_git_dir(root, one)
    saved = {k: os.environ.get(k) for k in ("GIT_DIR", "GIT_WORK_TREE")}
    try:
        os.environ.update(GIT_DIR=git, GIT_WORK_TREE=root)
        base = [sys.executable, "-m", "checker"]
        tail = ["--jobs", str(jobs), "--format", "json", "--progress", "never"]
        rel, op = os.path.relpath(one, root), os.path.relpath(os.path.dirname(one), root)
        runs = {}
        report = os.path.join(os.path.dirname(git), "pr.json")
        for name, cmd in (("pr", base + ["check", ".", "--changed-since", parent] + tail + ["--output", report]),
                          ("operator", base + ["check", op] + tail),
                          ("audit", base + ["audit", "."] + tail)):
            warm_page_cache(files)
            runs[name] = r = timed(cmd, root)
            print(f"{name:8} ({' '.join(cmd[3:5] if name != 'pr' else cmd[3:7])}, no cache, start to exit): {r['wall']:8.2f} s "
                  f"(CPU {r['cpu']:.2f} s); peak RSS {r['rss_mib']:.0f} MiB")
        print(f"pr     (one new bundle, {rel}): {runs['pr']['wall']:.2f} s = {100 * runs['pr']['wall'] / runs['audit']['wall']:.1f}% of "
              f"the audit's {runs['audit']['wall']:.1f} s wall (CPU {100 * runs['pr']['cpu'] / max(runs['audit']['cpu'], 1e-9):.1f}%); "
              f"its operator directory {runs['operator']['wall']:.2f} s")
        with open(report) as fh:
            checked = [b["path"] for b in json.load(fh)["bundles"]]
        print(f"       the pull request's report: {len(checked)} bundle(s) checked ({', '.join(checked)})")
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(os.path.dirname(git), ignore_errors=True)


def main() -> int:  # noqa: C901
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("directory", help="a catalog checkout (operators/...) or any directory of bundles")
    ap.add_argument("--jobs", type=int, default=0, help="olm-check --jobs (default: the cores)")
    ap.add_argument("--sample", type=int, default=0, help="only this many operators, spread over the catalog")
    ap.add_argument("--modes", default="floor,ryml,cparse,cold,pure,warm,touched,rehash,single",
                    help="comma-separated: floor,ryml,cparse,cold,pure,warm,touched,rehash,single,pr")
    ap.add_argument("--bundle", help="the bundle for 'single' (default: one from the middle of the catalog)")
    ap.add_argument("--verify", action="store_true", help="also compare the fast YAML path with the full parse")
    ap.add_argument("--keep", help="write the cold run's JSON report here")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the cold audit this many times, each on an empty cache, and print the best and the median "
                         "(wall times on a shared machine vary from run to run)")
    args = ap.parse_args()

    root = os.path.abspath(args.directory)
    ops_dir = os.path.join(root, "operators")
    if args.sample and os.path.isdir(ops_dir):
        ops = sorted(os.listdir(ops_dir))
        step = max(1, len(ops) // args.sample)
        paths = [os.path.join(ops_dir, o) for o in ops[::step][: args.sample]]
    else:
        paths = [root]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    from checker.runner.processes import default_jobs

    jobs = args.jobs or default_jobs()
    print(f"olm-check benchmark: {root}" + (f" ({len(paths)} operators sampled)" if len(paths) > 1 or paths[0] != root else ""))
    print(f"machine: {os.cpu_count()} CPUs, --jobs {jobs}, load average at start {os.getloadavg()[0]:.2f}")
    bundles = bundle_dirs(paths)
    files = yaml_files(root, paths, bundles)
    nbytes = warm_page_cache(files)
    print(f"input: {len(bundles)} bundles, {len(files)} YAML files, {nbytes / 1e6:.0f} MB (page cache warmed)")

    results = {}
    if "floor" in modes:
        secs, failed, cpu = floor(files)
        results["floor"] = secs
        results["floor_cpu"] = cpu
        print(f"floor  (yaml.load_all, CSafeLoader, 1 process): {secs:8.1f} s  ({nbytes / 1e6 / secs:.1f} MB/s; "
              f"{failed} files the C loader refuses); CPU {cpu:.1f} s")
    if "ryml" in modes:
        secs, failed, cpu = floor_ryml(files)
        results["ryml"] = secs
        print(f"ryml   (ryml.parse_in_arena, rapidyaml, 1 process): {secs:8.1f} s  ({nbytes / 1e6 / secs:.1f} MB/s; "
              f"{failed} files it refuses); CPU {cpu:.1f} s")
    got = parse_c(files) if "cparse" in modes else None
    if "cparse" in modes and got is None:
        print("cparse: not measured (the C accelerator, checker._cnodes, is not built here)")
    elif got is not None:
        secs, parsed, cpu = got
        results["cparse"] = secs
        ratio = f"; half of it (2 cores) is {secs / 2 / results['ryml']:.2f} of the ryml floor" if "ryml" in results else ""
        print(f"cparse (the audit's parse, C accelerator, 1 process):  {secs:8.1f} s  ({parsed} distinct files per "
              f"operator); CPU {cpu:.1f} s{ratio}")
    from checker import yamlload

    print(f"parser: {yamlload.parser_description()}")
    # run a frozen copy of the package: edits to the working tree during the run would
    # otherwise change the code digest (and so every cache key) between cold and warm
    global CODE
    CODE = tempfile.mkdtemp(prefix="olm-check-bench-code-")
    shutil.copytree(os.path.join(ROOT, "checker"), os.path.join(CODE, "checker"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    # compiled, as pip compiles an installed package: with PYTHONDONTWRITEBYTECODE set (as in
    # this project's image and some CI machines) every run would compile the sources first
    import compileall

    compileall.compile_dir(os.path.join(CODE, "checker"), quiet=1)
    cache = tempfile.mkdtemp(prefix="olm-check-bench-cache-")
    out = args.keep or os.path.join(cache, "report.json")
    audit = [sys.executable, "-m", "checker", "audit", *paths, "--jobs", str(jobs), "--format", "json",
             "--output", out, "--cache", cache, "--progress", "never"]
    one = args.bundle or (sorted(bundles)[len(bundles) // 2] if bundles else None)
    reports: dict = {}
    failed_compare: list = []
    try:
        for mode in ("cold", "pure", "warm", "touched", "rehash"):
            if mode not in modes:
                continue
            if mode == "touched":
                csvs = glob.glob(os.path.join(one or root, "manifests", "*.clusterserviceversion.yaml"))
                if not csvs:
                    continue
                os.utime(csvs[0])  # now; the content is unchanged
            elif mode == "rehash":
                import sqlite3

                db = sqlite3.connect(os.path.join(cache, "olm-check-cache.sqlite"))
                db.execute("DELETE FROM files")
                if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshots'").fetchone():
                    db.execute("DELETE FROM snapshots")  # made by the first run that stores a snapshot
                db.commit()
                db.close()
            runs = []
            cmd, extra = audit, {"OLM_CHECK_PURE_YAML": ""}
            if mode == "pure":  # a cold run of its own, without the accelerator, in a cache of its own
                pure_cache = tempfile.mkdtemp(prefix="olm-check-bench-cache-pure-")
                pure_out = os.path.join(pure_cache, "report.json")
                cmd = audit[:audit.index("--output")] + ["--output", pure_out, "--cache", pure_cache, "--progress", "never"]
                extra = {"OLM_CHECK_PURE_YAML": "1"}
            for n in range(max(1, args.repeat) if mode in ("cold", "pure") else 1):
                if n:  # an empty cache again (the report, when it is kept there, is written anew)
                    c = cache if mode == "cold" else pure_cache
                    shutil.rmtree(c, ignore_errors=True)
                    os.makedirs(c)
                warm_page_cache(files)  # again: this machine's kernel pages out what sat idle meanwhile
                r = timed(cmd, root, extra)
                runs.append(r)
                ratio = f", {r['wall'] / results['floor']:.3f} of the floor" if "floor" in results else ""
                # CPU seconds (user + system, the whole process tree): the work done, which other
                # load on the machine and the clock speed it runs at skew less than the wall time
                cpu = f"; CPU {r['cpu']:.1f} s" + (f" ({r['cpu'] / results['floor_cpu']:.3f} of the floor's)" if "floor" in results else "")
                if "ryml" in results and mode in ("cold", "pure"):
                    ratio += f", {r['wall'] / results['ryml']:.2f} of the ryml floor"
                print(f"{mode:7} (olm-check audit, start to exit):     {r['wall']:8.1f} s  ({len(bundles) / r['wall']:.0f} bundles/s{ratio}{cpu}); "
                      f"peak memory of the process tree: RSS {r['rss_mib']:.0f} MiB, PSS {r['pss_mib']:.0f} MiB; "
                      f"largest process {r['one_mib']:.0f} MiB")
            results[mode] = min(r["wall"] for r in runs)
            if len(runs) > 1:
                walls = sorted(r["wall"] for r in runs)
                cpus = sorted(r["cpu"] for r in runs)
                ratio = (f" ({walls[0] / results['floor']:.3f} and {walls[len(walls) // 2] / results['floor']:.3f} of the floor)"
                         if "floor" in results else "")
                print(f"{mode:7} over {len(runs)} runs: best {walls[0]:.1f} s, median {walls[len(walls) // 2]:.1f} s wall{ratio}; "
                      f"CPU best {cpus[0]:.1f} s, median {cpus[len(cpus) // 2]:.1f} s")
            if mode in ("cold", "pure"):
                with open(out if mode == "cold" else pure_out) as fh:
                    rep = json.load(fh)
                s = rep["summary"]
                internal = sum(1 for f in rep["findings"] if f["rule"] == "internal-error")
                print(f"       report: {s['bundles']} bundles, {s['errors']} errors, {s['warnings']} warnings, {s['info']} info, "
                      f"{internal} internal errors")
                reports[mode] = rep
            if mode == "pure":
                shutil.rmtree(pure_cache, ignore_errors=True)
                if "cold" in reports:
                    same = _findings(reports["cold"]) == _findings(reports["pure"])
                    print(f"pure   vs cold: the accelerator {results['pure'] / results['cold']:.2f}x faster over the whole audit; "
                          f"findings {'identical' if same else 'DIFFERENT'}")
                    if not same:
                        failed_compare.append("pure")
        if "single" in modes and one:
            warm_page_cache(files)
            r = timed([sys.executable, "-m", "checker", "check", one, "--format", "json", "--progress", "never"], root)
            results["single"] = r["wall"]
            print(f"single (olm-check check {os.path.relpath(one, root)}, start to exit): {r['wall']:.2f} s (CPU {r['cpu']:.2f} s); "
                  f"peak RSS {r['rss_mib']:.0f} MiB")
        if "pr" in modes and one:
            pr_mode(root, one, jobs, files)
    finally:
        shutil.rmtree(CODE, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(cache, ignore_errors=True)
    if args.verify:
        verify(files)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 1 if failed_compare else 0


def _findings(report: dict) -> list:
    """A report's findings without what differs from run to run (none should; timings aside)."""
    return sorted(json.dumps(f, sort_keys=True) for f in report["findings"])


if __name__ == "__main__":
    sys.exit(main())
