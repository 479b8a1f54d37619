"""Every git command olm-check runs, in one place: ``git -C <root> ...`` as a list of
arguments (never a shell), with a timeout. ``GitError`` when git cannot be run at all."""
from __future__ import annotations

import os
import subprocess
from typing import Optional

from .roots import git_toplevel


class GitError(Exception):
    """git cannot be run (not installed, not executable, timed out)."""


def run(root: str, *args: str, timeout: int = 120) -> subprocess.CompletedProcess[bytes]:
    """``git -C root args...`` (bytes out); ``GitError`` when git cannot be run."""
    try:
        return subprocess.run(["git", "-C", root, *args], capture_output=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as e:
        raise GitError(f"git is not available ({e})") from None


def output(root: str, *args: str, timeout: int = 60) -> Optional[str]:
    """The command's output (text, stripped) when it succeeds; None when it fails or git
    cannot be run."""
    try:
        res = run(root, *args, timeout=timeout)
    except GitError:
        return None
    return res.stdout.decode("utf-8", "replace").strip() if res.returncode == 0 else None


def trust(workspace: str) -> None:
    """``git config --global --add safe.directory workspace`` (a container running as root on
    a workspace another user owns); nothing when git cannot be run."""
    try:
        subprocess.run(["git", "config", "--global", "--add", "safe.directory", workspace],
                       capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        pass


def tracked_file(directory: str) -> Optional[str]:
    """A file git tracks in ``directory`` (or why git cannot tell, when it is inside a work
    tree), or None: no work tree, or nothing tracked there."""
    if not os.path.isdir(directory):
        return None  # not made yet: it holds nothing of a checkout
    if git_toplevel(directory) is None:  # no work tree around it: no git run
        return None
    try:
        got = run(directory, "ls-files", "-z", "--", ".", timeout=60)
    except GitError:
        return "files (git cannot be run to tell which)"
    if got.returncode != 0:
        return "files (git cannot tell which: " + (got.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[0] + ")"
    first = got.stdout.split(b"\0", 1)[0]
    return os.fsdecode(first) if first else None
