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
                target = line[4:]
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
