"""Which lines of a pull request a review comment may sit on (RIGHT side: added and context
lines of the new file), from GitHub's per-file ``patch`` or from a whole ``git diff``."""
from __future__ import annotations

import re
from typing import Optional

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def right_lines(patch: Optional[str]) -> set:
    """Line numbers (new file) of the added and context lines of one file's hunks."""
    out: set = set()
    if not patch:
        return out
    new = None
    for raw in patch.split("\n"):
        m = _HUNK.match(raw)
        if m:
            new = int(m.group(1))
            continue
        if new is None or raw.startswith("\\"):
            continue
        if raw.startswith("+"):
            out.add(new)
            new += 1
        elif raw.startswith("-"):
            continue
        elif raw.startswith(" "):
            out.add(new)
            new += 1
    return out


def added_lines(patch: Optional[str]) -> frozenset:
    """Line numbers (new file) of the added lines of one file's hunks: the lines the change
    wrote; the others are as the old file has them."""
    out: set = set()
    new = None
    for raw in (patch or "").split("\n"):
        m = _HUNK.match(raw)
        if m:
            new = int(m.group(1))
        elif new is not None and raw.startswith(("+", " ")):
            if raw.startswith("+"):
                out.add(new)
            new += 1
    return frozenset(out)


_ESCAPES = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a", "b": b"\b", "f": b"\f",
            "r": b"\r", "v": b"\v"}


def git_path(name: str) -> str:
    """A path as ``git diff`` prints it on its ``---``/``+++`` lines: C-quoted with octal
    escapes when it holds a quote, a backslash, a control or a non-ASCII character
    (``core.quotePath``): ``"b/caf\\303\\251.yaml"``; followed by a tab when it holds a
    space. Returns the path itself (its bytes decoded as the file system's names are)."""
    if name.endswith("\t"):
        name = name[:-1]
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n in "01234567" and all(x in "01234567" for x in body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out += _ESCAPES.get(n, n.encode("utf-8"))
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def split_git_diff(text: str) -> dict:
    """``git diff`` output -> {new path: its hunks} (deleted files are left out)."""
    files: dict = {}
    current: Optional[str] = None
    body: list = []
    in_header = False

    def flush():
        if current is not None:
            files[current] = "\n".join(body)

    for line in text.split("\n"):
        if line.startswith("diff --git "):
            flush()
            current, body, in_header = None, [], True
            continue
        if in_header:
            if line.startswith("+++ "):
                target = git_path(line[4:])
                current = target[2:] if target.startswith("b/") else None
                in_header = False
            elif line.startswith("@@"):
                in_header = False
                body.append(line)
            continue
        if current is not None:
            body.append(line)
    flush()
    return files
