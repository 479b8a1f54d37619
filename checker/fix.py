"""``olm-check fix [PATH...]``: apply the machine-applicable fixes the checks compute, like
``ruff --fix``.

Each ``Finding.fix`` replaces one whole line (``Fix.line``, ``Fix.replacement``). ``fix``
checks the paths, writes the fixes into the files, and checks again until no fix is left or
a pass changes nothing (at most ``MAX_PASSES``: one fix may only become possible once
another is written), so a second ``fix`` changes nothing. Only the fixed lines change: every
other byte of a file (comments, order, indentation, line endings, the final newline) stays.

* ``--select`` / ``--ignore`` (rule ids and prefixes, as ``check``'s): only the selected
  rules' fixes are applied.
* ``--diff`` prints the first pass as a unified diff and writes nothing (exit 1 when there
  is something to fix, 0 when not, as ``ruff --diff``).
* A fix of a label in ``metadata/annotations.yaml`` is made in the bundle's
  ``bundle.Dockerfile`` / ``Dockerfile`` LABEL too (an operator-sdk project's root
  ``bundle.Dockerfile`` for ``bundle/``: ``layout.bundle_dockerfile``) when that held the
  same value, so the two stay in agreement.
* Never a file outside the checked tree: the file's real path (symlinks resolved) must be
  below the repository root (the git work tree, or the directory of the paths) or below the
  tree of another path named (``load.Reader.extra_roots``: another catalog repository), and
  a symlink is never written through.
* Two different fixes of one line: the first (by rule id) is applied, the other waits for
  the next pass, which sees the new line.
"""
from __future__ import annotations

import difflib
import os
import re
import sys
from typing import Optional

MAX_PASSES = 10


class Edit:
    """One applied fix: the file, the line, the rule and what was done."""

    def __init__(self, path: str, line: int, rule: str, description: str):
        self.path, self.line, self.rule, self.description = path, line, rule, description


def _inside(roots: tuple, path: str) -> bool:
    real = os.path.realpath(path)
    for root in roots:
        root = os.path.realpath(root)
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False


def _file_of(f, base: str, root: tuple) -> Optional[str]:
    """The file a finding's display path names, when it may be written; else None."""
    p = f.path if os.path.isabs(f.path) else os.path.join(base, f.path)
    if os.path.islink(p) or not os.path.isfile(p) or not _inside(root, p):
        return None
    return p


def _split(text: str) -> list:
    return text.split("\n")  # YAML and Dockerfile lines end at \n (a \r stays on its line)


def _replace(pieces: list, line: int, replacement: str) -> bool:
    """Replace line ``line`` (1-based) of ``pieces``; False when it does not exist."""
    i = line - 1
    if not 0 <= i < len(pieces) or (i == len(pieces) - 1 and pieces[i] == "" and len(pieces) > 1):
        return False
    cr = "\r" if pieces[i].endswith("\r") else ""
    if replacement == "":
        del pieces[i]
    else:
        pieces[i:i + 1] = [line + cr for line in replacement.split("\n")]
    return True


_ANNOTATION = re.compile(r"""^\s*(?P<q>["']?)(?P<key>[^"'\s:#][^"':#]*)(?P=q)\s*:\s*(?P<value>.*?)\s*$""")


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def _label_twin(path: str, old_line: str, new_line: str) -> Optional[tuple]:
    """For a fixed line of ``metadata/annotations.yaml``: (Dockerfile, new text) with the
    same LABEL's value changed alike, when the Dockerfile held the old value; else None."""
    if os.path.basename(path) not in ("annotations.yaml", "annotations.yml") or os.path.basename(os.path.dirname(path)) != "metadata":
        return None
    a, b = _ANNOTATION.match(old_line.rstrip("\r")), _ANNOTATION.match(new_line.rstrip("\r"))
    if not a or not b or a.group("key") != b.group("key"):
        return None
    key, old, new = a.group("key"), _unquote(a.group("value")), _unquote(b.group("value"))
    if old == new:
        return None
    from .layout import bundle_dockerfile

    bundle = os.path.dirname(os.path.dirname(path))
    # its own bundle.Dockerfile or Dockerfile, else an operator-sdk project root's bundle.Dockerfile
    for df in [bundle_dockerfile(bundle)]:
        if df is None or os.path.islink(df) or not os.path.isfile(df):
            continue
        try:
            with open(df, "rb") as fh:
                text = fh.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        label = re.compile(r"(?P<k>(?<![\w./-])" + re.escape(key) + r"=)(?P<v>\"[^\"\n]*\"|'[^'\n]*'|[^\s\\\n]*)")

        def swap(m):
            v = m.group("v")
            if _unquote(v) != old:
                return m.group(0)
            q = v[0] if v[:1] in "\"'" and len(v) >= 2 else ('"' if " " in new else "")
            return m.group("k") + q + new + q

        out = label.sub(swap, text)
        return (df, out) if out != text else None
    return None


def plan(findings: list, base: str, root: tuple) -> tuple:
    """({file: new text}, [Edit], skipped) for one pass over ``findings``; ``root``: the
    checked trees (files elsewhere are not written)."""
    by_file: dict = {}
    for f in findings:
        if f.fix is None:
            continue
        p = _file_of(f, base, root)
        if p is None:
            continue
        by_file.setdefault(p, []).append(f)
    texts, edits, skipped = {}, [], 0
    twins = {}
    for p, fs in sorted(by_file.items()):
        try:
            with open(p, "rb") as fh:
                original = fh.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        pieces = _split(original)
        chosen: dict = {}
        for f in sorted(fs, key=lambda f: (f.fix.line, f.rule, f.fix.replacement)):
            have = chosen.get(f.fix.line)
            if have is None:
                chosen[f.fix.line] = f
            elif have.fix.replacement != f.fix.replacement:
                skipped += 1  # the next pass sees the new line
        # bottom up: a fix that adds or removes lines leaves the line numbers above it
        for line in sorted(chosen, reverse=True):
            f = chosen[line]
            old = pieces[line - 1] if 0 < line <= len(pieces) else None
            if old is None or not _replace(pieces, line, f.fix.replacement):
                continue
            edits.append(Edit(f.path, line, f.rule, f.fix.description))
            twin = _label_twin(p, old, f.fix.replacement)
            if twin is not None and _inside(root, twin[0]):
                twins[twin[0]] = twin[1]
                key = _ANNOTATION.match(old.rstrip("\r")).group("key")
                edits.append(Edit(_display(twin[0], base), _first_change(twin[0], twin[1]), "",
                                  f"LABEL {key} changed alike (agrees with {f.path})"))
        new = "\n".join(pieces)
        if new != original:
            texts[p] = (original, new)
    for df, new in twins.items():
        if df in texts:
            continue
        with open(df, "rb") as fh:
            texts[df] = (fh.read().decode("utf-8"), new)
    edits.sort(key=lambda e: (not e.rule, e.path, e.line))  # the Dockerfile LABELs changed alike last
    return texts, edits, skipped


def _first_change(path: str, new: str) -> int:
    with open(path, "rb") as fh:
        old = fh.read().decode("utf-8")
    for i, (a, b) in enumerate(zip(old.split("\n"), new.split("\n")), 1):
        if a != b:
            return i
    return 1


def _write(path: str, text: str) -> None:
    st = os.stat(path)
    tmp = path + ".olm-check-fix.tmp"
    with open(tmp, "wb") as fh:
        fh.write(text.encode("utf-8"))
    os.chmod(tmp, st.st_mode & 0o7777)
    os.replace(tmp, path)


def _display(path: str, base: str) -> str:
    rel = os.path.relpath(path, base)
    return path if rel.startswith("..") else rel


def cmd_fix(args) -> int:
    from . import targets
    from .api import CheckError, check
    from .targets import parse_target
    from .usage import Usage
    from .roots import display_base, repo_root

    from .selection import View

    paths = targets.expand(args.paths or ["."])
    target = parse_target(args.ocp)
    targets.check_ocp(target, paths, args.config)
    view = View.from_args(args)  # --select / --ignore: whose fixes are applied
    base = display_base(paths)
    root = repo_root(paths)
    from .report.text import Paths

    shown = Paths(base, paths)  # the lines naming a fix: relative to the current directory, as check prints them
    total, files, passes = [], set(), 0
    while passes < (1 if args.diff else MAX_PASSES):
        passes += 1
        try:
            res = check(paths, config_path=args.config, profile=args.profile, target=target)
        except CheckError as e:
            raise Usage(str(e))
        if passes == 1 and not args.allow_empty and targets.nothing_checked(res):
            raise Usage(targets.nothing_message(paths))
        reader = getattr(res.repo, "reader", None)
        trees = (root,) + (tuple(reader.extra_roots) if reader is not None else ())
        texts, edits, _skipped = plan([f for f in res.findings if view.wanted(f.rule)], base, trees)
        if not texts:
            break
        if args.diff:
            for p, (old, new) in sorted(texts.items()):
                name = _display(p, base)
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/" + name, "b/" + name))
                if not new.endswith("\n") or not old.endswith("\n"):
                    sys.stdout.write("\n")
            for e in edits:
                print(f"{shown(e.path)}:{e.line}: {e.rule}: {e.description or 'fix'}" if e.rule
                      else f"{shown(e.path)}:{e.line}: {e.description}", file=sys.stderr)
            print(f"would fix {len([e for e in edits if e.rule])} finding(s) in {len(texts)} file(s)", file=sys.stderr)
            return 1
        for p, (_old, new) in texts.items():
            try:
                _write(p, new)
            except OSError as e:
                raise Usage(f"{_display(p, base)}: cannot write the fix ({e.strerror})")
            files.add(p)
        total += edits
    if args.diff:
        print("nothing to fix", file=sys.stderr)
        return 0
    for e in total:
        print(f"{shown(e.path)}:{e.line}: fixed {e.rule}: {e.description or 'fix'}" if e.rule
              else f"{shown(e.path)}:{e.line}: {e.description}")
    fixed = [e for e in total if e.rule]
    if fixed:
        print(f"fixed {len(fixed)} finding(s) in {len(files)} file(s); `olm-check check` shows what remains")
    else:
        print("nothing to fix")
    return 0
