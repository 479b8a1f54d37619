"""Baseline states: which findings a change brings, and which it inherits.

In a pull request (or ``--changed-since REF`` / ``--baseline REF``) every finding is
``new``, ``unchanged`` or ``updated`` against the base, as SARIF's ``result.baselineState``
names them. The base is checked the same way as the head (same configuration, profile and
releases), from the base commit's files (``git ls-tree`` + ``git cat-file``: read as data,
written to a temporary directory, never checked out), and each head finding is matched:

* a bundle directory the base has (or that a change renames from one it has) is compared
  with itself at the base;
* a new bundle directory with the operator's previous bundle at the base: the one its CSV
  ``replaces``, else the next lower version among the operator's bundle directories;
* any other file with itself at the base (its previous path when renamed).

Findings match on rule, file and message, with the bundle's versions and paths normalised
(``key``): the same key is ``unchanged``; the same rule and file with the quoted values and
numbers of the message differing is ``updated`` (the same problem, with other values);
anything else is ``new``. Only ``new`` and ``updated`` findings fail a run by default
(``gating``): the catalog already accepted the rest, as SonarQube's new-code gate does.

Like ``changes``, this module reads the tree and runs git (read-only); rules never see it.
"""
from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import stat
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from . import git

NEW, UNCHANGED, UPDATED = "new", "unchanged", "updated"
MAX_BASE_BYTES = 256 * 1024 * 1024  # what is read from the base commit, at most

_VERSION = re.compile(r"(?<![0-9A-Za-z])(?<!\d\.)v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]*[0-9A-Za-z])?(?:\+[0-9A-Za-z.-]*[0-9A-Za-z])?"
                      r"(?![0-9A-Za-z])")
_LINES = re.compile(r"\b(lines?) \d+(?:\s*(?:-|–|to|and)\s*\d+)?")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_REPLACES = re.compile(r"^\s*replaces:\s*['\"]?([^'\"\s#]+)", re.M)


class BaselineError(Exception):
    """The base cannot be read (unknown commit, git missing): no baseline states."""


@dataclass
class Baseline:
    """What a run was compared with: ``ref`` (the commit), ``previous`` (head bundle dir ->
    the base bundle dir it was compared with, "" for none), and the counts."""

    ref: str
    previous: dict = field(default_factory=dict)
    counts: Counter = field(default_factory=Counter)
    absent: int = 0  # base findings the head no longer has (fixed by the change)
    notes: list = field(default_factory=list)


# --- normalised keys -------------------------------------------------------------------------

def _normal(text: str, dirs: tuple) -> str:
    for d in dirs:
        if d and d in text:  # the directory as a whole path (not 'b' inside 'bad')
            text = re.sub(r"(?<![\w.-])" + re.escape(d) + r"(?![\w.-])", "<bundle>", text)
    text = _LINES.sub(r"\1 #", text)
    return _VERSION.sub("<version>", text)


def key(rule: str, path: str, message: str, dirs: tuple = ()) -> tuple:
    """The finding's identity across versions: rule, path and message, with ``dirs`` (the
    bundle directory, head or base) made ``<bundle>``, versions (``1.19.1``, ``v1.19.0-rc.1``)
    ``<version>`` and quoted line numbers ``#``."""
    return (rule, _normal(path, dirs), _normal(message, dirs))


def loose_key(k: tuple) -> tuple:
    """``key`` with every quoted value and number of the message left out: an ``updated``
    finding is the same problem with other values."""
    rule, path, message = k
    return (rule, path, _NUMBER.sub("#", _QUOTED.sub("'…'", message)))


def classify(head: list, base: list, head_dirs, base_dirs) -> tuple:
    """Set ``baseline_state`` on each head finding. ``head_dirs(f)``/``base_dirs(f)``: the
    directories to normalise in a finding's path and message (its bundle and the bundle it is
    compared with). Returns (counts, absent)."""
    exact: Counter = Counter()
    loose: Counter = Counter()
    for f in base:
        k = key(f.rule, f.path, f.message, base_dirs(f))
        exact[k] += 1
        loose[loose_key(k)] += 1
    counts: Counter = Counter()
    pending = []
    for f in head:  # exact matches first, so an updated one never takes an unchanged one's match
        k = key(f.rule, f.path, f.message, head_dirs(f))
        if exact[k] > 0:
            exact[k] -= 1
            loose[loose_key(k)] -= 1
            f.baseline_state = UNCHANGED
        else:
            pending.append((f, loose_key(k)))
    for f, lk in pending:
        if loose[lk] > 0:
            loose[lk] -= 1
            f.baseline_state = UPDATED
        else:
            f.baseline_state = NEW
    for f in head:
        counts[f.baseline_state] += 1
    return counts, sum(v for v in loose.values() if v > 0)


def gating(findings: list, all_findings: bool = False) -> list:
    """The findings ``fail_on`` applies to: the new and updated ones (a finding without a
    state -- no baseline -- counts as new), or every one with ``all_findings``."""
    if all_findings:
        return list(findings)
    return [f for f in findings if getattr(f, "baseline_state", "") != UNCHANGED]


# --- the base commit's files -----------------------------------------------------------------

def merge_base(root: str, ref: str, head: str = "HEAD") -> str:
    """The commit a three-dot diff of ``ref...head`` starts from."""
    got = git.output(root, "merge-base", ref, head)
    if not got:
        raise BaselineError(f"no merge base of {ref} and {head} in the checkout (fetch-depth: 0 brings the history)")
    return got.split()[0]


def resolve(root: str, ref: str) -> str:
    got = git.output(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if not got:
        raise BaselineError(f"{ref} is not a commit of the checkout")
    return got


def _ls_tree(root: str, ref: str, paths: list) -> list:
    """(mode, sha, size, path) of the blobs below ``paths`` at ``ref``."""
    if not paths:
        return []
    try:
        res = git.run(root, "ls-tree", "-r", "-z", "--long", "--full-tree", ref, "--", *paths, timeout=120)
    except git.GitError as e:
        raise BaselineError(str(e)) from None
    if res.returncode != 0:
        raise BaselineError(f"git ls-tree {ref}: {res.stderr.decode('utf-8', 'replace').strip()}")
    out = []
    for entry in res.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _tab, name = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) != 4 or parts[1] != b"blob":
            continue
        mode, sha, size = parts[0].decode(), parts[2].decode(), parts[3].decode()
        out.append((mode, sha, int(size) if size.isdigit() else 0, os.fsdecode(name)))
    return out


def light(path: str) -> bool:
    """A file a context bundle needs (the operator's other bundles: versions, channels, the
    upgrade graph): everything but the manifests that are not the CSV (CRDs are most of a
    bundle's bytes). Operator-level files and catalogs are kept whole."""
    parts = path.split("/")
    if len(parts) >= 5 and parts[0] == "operators" and parts[3] == "manifests":
        return "clusterserviceversion" in parts[-1].lower()
    return True


def extract(root: str, ref: str, paths: list, dest: str, keep=None, blobs: Optional[dict] = None) -> int:
    """Write the regular files below ``paths`` at ``ref`` under ``dest`` (symlinks and
    submodules are left out: a base file is data, never followed); ``keep(path)``: only the
    files it accepts; ``blobs``: filled with path -> blob id of every regular file below
    ``paths``, kept or not. Returns the file count."""
    listed = [e for e in _ls_tree(root, ref, sorted(set(paths))) if e[0] in ("100644", "100755")]
    if blobs is not None:
        blobs.update((e[3], e[1]) for e in listed)
    entries = [e for e in listed if keep is None or keep(e[3])]
    total = 0
    kept = []
    for e in entries:
        total += e[2]
        if total > MAX_BASE_BYTES:
            raise BaselineError(f"the base's files are larger than {MAX_BASE_BYTES >> 20} MiB")
        if ".." in e[3].split("/") or e[3].startswith("/"):
            continue
        kept.append(e)
    if not kept:
        return 0
    import subprocess

    try:
        proc = subprocess.run(["git", "-C", root, "cat-file", "--batch"], input=b"".join(e[1].encode() + b"\n" for e in kept),
                              capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        raise BaselineError(f"git cat-file: {e}") from None
    data, pos = proc.stdout, 0
    for _mode, _sha, _size, path in kept:
        nl = data.find(b"\n", pos)
        if nl < 0:
            break
        head = data[pos:nl].split()
        if len(head) < 3 or head[1] != b"blob":
            pos = nl + 1
            continue
        n = int(head[2])
        body = data[nl + 1:nl + 1 + n]
        pos = nl + 1 + n + 1
        out = os.path.join(dest, *path.split("/"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as fh:
            fh.write(body)
    return len(kept)


# --- which base bundle a head bundle is compared with ----------------------------------------

def _is_bundle_dir(d: str) -> bool:
    return os.path.isdir(os.path.join(d, "manifests")) or os.path.isdir(os.path.join(d, "metadata"))


def _replaces(head_dir: str) -> Optional[str]:
    """The CSV's ``spec.replaces`` (read from the text: a CSV is not parsed twice)."""
    m = os.path.join(head_dir, "manifests")
    try:
        names = sorted(os.listdir(m))
    except OSError:
        return None
    for n in names:
        if n.endswith((".clusterserviceversion.yaml", ".clusterserviceversion.yml")):
            try:
                with open(os.path.join(m, n), encoding="utf-8", errors="replace") as fh:
                    got = _REPLACES.search(fh.read(1 << 20))
            except OSError:
                return None
            return got.group(1) if got else None
    return None


def _version_of(name: str):
    from .upstream.blangsemver import try_parse_tolerant

    m = _VERSION.search(name)
    return try_parse_tolerant(m.group(0)) if m else None


def previous_bundle(head_root: str, head_bundle: str, base_root: str) -> str:
    """The base bundle directory (repository-relative) a new bundle directory is compared
    with: the one its CSV replaces, else the next lower version of the operator's bundle
    directories at the base; "" when there is none (a new operator)."""
    parent = posixpath.dirname(head_bundle)
    base_parent = os.path.join(base_root, *parent.split("/")) if parent else base_root
    try:
        siblings = [d for d in sorted(os.listdir(base_parent)) if _is_bundle_dir(os.path.join(base_parent, d))]
    except OSError:
        return ""
    if not siblings:
        return ""
    rel = lambda d: f"{parent}/{d}" if parent else d  # noqa: E731
    replaces = _replaces(os.path.join(head_root, *head_bundle.split("/")))
    if replaces:
        rv = _version_of(replaces)
        for d in siblings:
            dv = _version_of(d)
            if rv is not None and dv is not None and dv.compare(rv) == 0:
                return rel(d)
    mine = _version_of(posixpath.basename(head_bundle))
    if mine is None:
        return ""
    lower = [(v, d) for d in siblings if (v := _version_of(d)) is not None and v.compare(mine) < 0]
    if not lower:
        return ""
    best = lower[0]
    for v, d in lower[1:]:
        if v.compare(best[0]) > 0:
            best = (v, d)
    return rel(best[1])


# --- the whole comparison ---------------------------------------------------------------------

def _repo_path(path: str) -> bool:
    """A repository-relative path git can name (not absolute, not leaving the tree)."""
    return bool(path) and not path.startswith("/") and ".." not in path.split("/") and ":" not in path[:2]


def _bundle_of(path: str, bundles: list) -> Optional[str]:
    for b in bundles:
        if path == b or path.startswith(b + "/"):
            return b
    return None


def apply(result, root: str, ref: str, changes: Optional[list] = None, *, config_path: Optional[str] = None,  # noqa: C901
          target=None) -> Baseline:
    """Check the base ``ref`` as ``result`` (an ``api.Result`` of the head) was checked and set
    each finding's ``baseline_state``. ``changes``: the change list (renames tell where a
    bundle was); ``root``: the head's repository root. ``BaselineError`` when the base cannot
    be read (the findings keep no state)."""
    from .api import CheckError, check

    bl = Baseline(ref)
    findings = result.findings
    bundles = sorted((b.path for b in result.run.bundles), key=len, reverse=True)
    renamed_from: dict = {}
    for c in changes or []:
        if c.previous_path:
            renamed_from[c.path] = c.previous_path
    tmp = tempfile.mkdtemp(prefix="olm-check-base-")
    try:
        # what the base holds for the head's bundles and files: whole operator directories
        # (their other bundles are context and hold the previous bundle) and each other file
        want: set = set()
        for b in bundles:
            parts = b.split("/")
            want.add("/".join(parts[:2]) if parts[0] == "operators" and len(parts) >= 3 else b)
            for new, old in renamed_from.items():
                if new.startswith(b + "/"):
                    op = old.split("/")
                    want.add("/".join(op[:2]) if op[0] == "operators" and len(op) >= 3 else posixpath.dirname(old))
        for f in findings:
            if _bundle_of(f.path, bundles) is None and _repo_path(f.path):
                want.add(renamed_from.get(f.path, f.path))
        ops = sorted({w.split("/")[1] for w in want if w.startswith("operators/") and w.count("/") >= 1})
        if ops and os.path.isdir(os.path.join(root, "catalogs")):
            for entry in sorted(os.listdir(os.path.join(root, "catalogs"))):
                for op in ops:
                    want.add(f"catalogs/{entry}/{op}")
        # the operators' other bundles as light context; the compared bundles whole (below)
        base_blobs: dict = {}  # base path -> blob id, of everything below ``want``
        extract(root, ref, sorted(w for w in want if _repo_path(w)), tmp, keep=light, blobs=base_blobs)
        os.makedirs(os.path.join(tmp, ".git"), exist_ok=True)  # display paths relative to it (no git is run there)
        # each head bundle's counterpart at the base
        for b in bundles:
            if _is_bundle_dir(os.path.join(tmp, *b.split("/"))):
                bl.previous[b] = b
                continue
            moved = {posixpath.dirname(posixpath.dirname(old)) if old.count("/") >= 2 else ""
                     for new, old in renamed_from.items() if new.startswith(b + "/")}
            moved = {m for m in moved if m and _is_bundle_dir(os.path.join(tmp, *m.split("/")))}
            bl.previous[b] = sorted(moved)[0] if moved else previous_bundle(root, b, tmp)
        whole = sorted({p for p in bl.previous.values() if p})
        if whole:
            extract(root, ref, whole, tmp)
        counterparts = sorted({p for p in bl.previous.values() if p}
                              | {renamed_from.get(f.path, f.path) for f in findings if _bundle_of(f.path, bundles) is None})
        present = [p for p in counterparts if os.path.exists(os.path.join(tmp, *p.split("/")))]
        load = sorted({("/".join(p.split("/")[:2]) if p.startswith("operators/") and p.count("/") >= 2 else p)
                       for p in present})
        base_findings: list = []
        if load:
            cfg = config_path
            if cfg is None:
                c = os.path.join(root, ".olm-check.yaml")
                cfg = c if os.path.isfile(c) else None
            try:
                base = check([os.path.join(tmp, *p.split("/")) for p in load], config_path=cfg, profile=result.profile,
                             fail_on="never", target=target, changed=present, root=tmp)
            except CheckError as e:
                raise BaselineError(f"the base could not be checked ({e})") from None
            base_findings = base.findings
        base_bundles = sorted({v for v in bl.previous.values() if v}, key=len, reverse=True)
        old_to_new = {old: new for new, old in renamed_from.items()}
        pools: dict = {}  # base bundle dir (None: outside bundles) -> its findings
        for f in base_findings:
            b = _bundle_of(f.path, base_bundles)
            if b is None and f.path in old_to_new:  # a renamed file outside bundles: its base self
                f.path = old_to_new[f.path]
            pools.setdefault(b, []).append(f)
        groups: dict = {}  # head bundle dir (None: outside bundles) -> its findings
        for f in findings:
            groups.setdefault(_bundle_of(f.path, bundles), []).append(f)
        seen_pools: set = set()
        for hb, group in groups.items():
            pb = bl.previous.get(hb, "") if hb else None
            pool = pools.get(pb or None, []) if (hb is None or pb) else []
            # (two head bundles may share a previous bundle: each is compared with all of it)
            counts, absent = classify(group, pool, lambda f, hb=hb, pb=pb: (hb, pb) if hb else (),
                                      lambda f, hb=hb, pb=pb: (pb, hb) if hb else ())
            bl.counts.update(counts)
            if (pb or None) not in seen_pools:
                seen_pools.add(pb or None)
                bl.absent += absent
        content_states(findings, root, tmp, bl.previous, renamed_from, bundles, base_blobs)
        bl.counts = Counter(f.baseline_state for f in findings)
        return bl
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- what a file's own bytes decide ----------------------------------------------------------

# rules whose findings on a file follow from that file's bytes alone: the same bytes at the
# base had the same findings, whatever else the change did
CONTENT_RULES = frozenset({"yaml-lint", "yaml-syntax", "yaml-duplicate-key", "yaml-limits"})
_MAX_READ = 4 << 20  # a head file larger than this is not compared by content


def blob_id(data: bytes) -> str:
    """git's blob id of ``data`` (``git hash-object``): the base's files are named by it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _read(path: str) -> Optional[bytes]:
    """A regular file's bytes (never through a link), or None."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_READ:
            return None
        with open(path, "rb") as fh:
            return fh.read(_MAX_READ + 1)
    except OSError:
        return None


def _line(text: list, n: Optional[int]) -> str:
    """Line ``n`` (1-based) of ``text`` with versions normalised, "" past the end."""
    if not n or n > len(text):
        return ""
    return _VERSION.sub("<version>", text[n - 1])


def _counterpart(path: str, tmp: str, previous: dict, renamed_from: dict, bundles: list,
                 base_blobs: dict) -> Optional[str]:
    """The base file a head file is compared with by content: itself (its previous name when
    renamed), else the file at the same place in the bundle it is compared with (versions in
    the names normalised: ``x.v1.1.0.clusterserviceversion.yaml`` is ``x.v1.0.0...``)."""
    old = renamed_from.get(path, path)
    if old in base_blobs:
        return os.path.join(tmp, *old.split("/"))
    hb = _bundle_of(path, bundles)
    pb = previous.get(hb) if hb else None
    if not hb or not pb:
        return None
    want = _normal(path[len(hb) + 1:], ())
    for p in base_blobs:
        if p.startswith(pb + "/") and _normal(p[len(pb) + 1:], ()) == want:
            return os.path.join(tmp, *p.split("/"))
    return None


def content_states(findings: list, root: str, tmp: str, previous: dict, renamed_from: dict, bundles: list,
                   base_blobs: dict) -> None:
    """What a file's bytes decide, after ``classify``: a file with the bytes of a base file (as
    it was, or copied or renamed: a bundle copied from the previous one, a renamed directory)
    carries no new finding of a ``CONTENT_RULES`` rule (a finding that depends on where the
    file sits or on other files, as a directory name that no longer matches the version, is
    compared by ``classify``); and a yaml-lint finding is matched with yamllint's problems in the
    file's base counterpart (``_counterpart``) by message and line text (yaml-lint runs on
    submitted bundles only, so the base check has none to compare with)."""
    from .rules.format.yaml_lint import message, problems

    shas = set(base_blobs.values())
    groups: dict = {}
    for f in findings:
        if f.baseline_state != UNCHANGED and _repo_path(f.path):
            groups.setdefault(f.path, []).append(f)
    for path, group in groups.items():
        data = _read(os.path.join(root, *path.split("/")))
        if data is None:
            continue
        if blob_id(data) in shas:  # the file as it was, or a copy or a rename of a base file
            for f in group:
                if f.rule in CONTENT_RULES:
                    f.baseline_state = UNCHANGED
            continue
        lint = [f for f in group if f.rule == "yaml-lint"]
        if not lint:
            continue
        other = _counterpart(path, tmp, previous, renamed_from, bundles, base_blobs)
        base_data = _read(other) if other else None
        if base_data is None:
            continue
        try:
            found = problems(base_data)
        except Exception:  # yamllint's failure on the base's bytes: nothing to compare with
            continue
        base_text = base_data.decode("utf-8", "replace").splitlines()
        head_text = data.decode("utf-8", "replace").splitlines()
        pool = Counter((message(desc, rid), _line(base_text, line)) for line, _c, _l, rid, desc in found)
        for f in lint:
            k = (f.message, _line(head_text, f.line))
            if pool[k] > 0:
                pool[k] -= 1
                f.baseline_state = UNCHANGED


def mark_report(result, bl: Optional[Baseline]) -> None:
    """Put the run's ``baseline`` into ``result``'s report (an ``api.Result``): the commit, the
    counts, and each bundle's previous bundle (each finding carries its state already)."""
    if bl is None:
        return
    from dataclasses import replace

    from .report.run import BaselineSummary

    result.run = replace(result.run, baseline=BaselineSummary(
        bl.ref, bl.counts.get(NEW, 0), bl.counts.get(UPDATED, 0), bl.counts.get(UNCHANGED, 0), bl.absent,
        tuple((k, v or None) for k, v in sorted(bl.previous.items()))))


def for_cli(res, paths: list, ref: str, changed_since: bool, changes, config_path, target) -> Baseline:
    """``--changed-since REF`` (the merge base of REF and HEAD) or ``--baseline REF`` (REF
    itself): the states of ``res``'s findings, in place, and in its report."""
    from .roots import repo_root

    root = repo_root(paths)
    commit = merge_base(root, ref) if changed_since else resolve(root, ref)
    bl = apply(res, root, commit, changes, config_path=config_path, target=target)
    mark_report(res, bl)
    return bl
