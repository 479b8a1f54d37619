"""Unified-diff patches the way GitHub shows them in ``pulls/{n}/files``.

GitHub's ``patch`` field holds the hunks of one file only (no ``---``/``+++`` header),
``\\ No newline at end of file`` markers included, and no trailing newline. A review
comment can sit on any line of a hunk: ``side: RIGHT`` on an added or context line
(numbered in the new file), ``side: LEFT`` on a deleted or context line (numbered in the
old file). ``position`` counts patch lines below the first ``@@`` header (which is 0),
later headers included.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Optional

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class PatchLine:
    position: int          # 0 for the first header, then 1, 2, ... as GitHub counts
    kind: str              # "hunk", "context", "add", "delete", "meta"
    text: str
    hunk: int              # index of the hunk the line belongs to
    old: Optional[int]     # line number in the base file (context, delete)
    new: Optional[int]     # line number in the head file (context, add)


class Patch:
    """A parsed patch: which lines a review comment may target, and their hunks."""

    def __init__(self, text: Optional[str]):
        self.text = text or ""
        self.lines: list = []
        self.additions = 0
        self.deletions = 0
        if text:
            self._parse(text)

    def _parse(self, text: str) -> None:
        old = new = 0
        hunk = -1
        for position, raw in enumerate(text.split("\n")):
            m = _HUNK.match(raw)
            if m:
                hunk += 1
                old, new = int(m.group(1)), int(m.group(3))
                self.lines.append(PatchLine(position, "hunk", raw, hunk, None, None))
            elif hunk < 0:
                raise ValueError(f"patch does not start with a hunk header: {raw!r}")
            elif raw.startswith("+"):
                self.lines.append(PatchLine(position, "add", raw, hunk, None, new))
                new += 1
                self.additions += 1
            elif raw.startswith("-"):
                self.lines.append(PatchLine(position, "delete", raw, hunk, old, None))
                old += 1
                self.deletions += 1
            elif raw.startswith("\\"):
                self.lines.append(PatchLine(position, "meta", raw, hunk, None, None))
            else:  # context (" ..."), or an empty line from a trailing newline
                if raw == "" and position == len(text.split("\n")) - 1:
                    break
                self.lines.append(PatchLine(position, "context", raw, hunk, old, new))
                old += 1
                new += 1

    def find(self, line: int, side: str) -> Optional[PatchLine]:
        """The patch line a comment on ``line`` of ``side`` (LEFT/RIGHT) lands on."""
        for pl in self.lines:
            if side == "RIGHT" and pl.new == line and pl.kind in ("add", "context"):
                return pl
            if side == "LEFT" and pl.old == line and pl.kind in ("delete", "context"):
                return pl
        return None

    def at_position(self, position: int) -> Optional[PatchLine]:
        for pl in self.lines:
            if pl.position == position and pl.kind in ("add", "delete", "context"):
                return pl
        return None

    def commentable(self, side: str = "RIGHT") -> list:
        """Every line number a comment may use on ``side``."""
        attr = "new" if side == "RIGHT" else "old"
        return [getattr(pl, attr) for pl in self.lines if getattr(pl, attr) is not None]

    def diff_hunk(self, target: PatchLine) -> str:
        """GitHub's ``diff_hunk`` of a comment: its hunk's header down to its line."""
        out = [pl.text for pl in self.lines
               if pl.hunk == target.hunk and pl.position <= target.position]
        return "\n".join(out)


def make_patch(base: Optional[str], head: Optional[str], context: int = 3) -> str:
    """The GitHub-style patch turning ``base`` into ``head`` (None = file absent)."""
    old = (base or "").splitlines(keepends=True)
    new = (head or "").splitlines(keepends=True)
    out = []
    for i, line in enumerate(difflib.unified_diff(old, new, n=context)):
        if i < 2:  # the ---/+++ header: GitHub's patch field has none
            continue
        if line.startswith("@@"):
            out.append(line.rstrip("\n"))
        elif line.endswith("\n"):
            out.append(line[:-1])
        else:
            out.append(line)
            out.append(NO_NEWLINE)
    return "\n".join(out)


def added_patch(lines: int, prefix: str = "line") -> str:
    """A patch adding a new file of ``lines`` numbered lines (handy in tests)."""
    body = "\n".join(f"+{prefix} {i}" for i in range(1, lines + 1))
    return f"@@ -0,0 +1,{lines} @@\n{body}"
