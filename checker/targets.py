"""What a run is asked to check, settled before it runs and judged after it ran.

* ``expand``: a path pre-commit (or a person) passes that is part of an operator but of no
  bundle -- ``operators/<name>/ci.yaml``, a file of ``catalogs/<release>/<name>/`` -- stands
  for that operator's directory, so changing it checks the operator.
* ``check_ocp``: ``--ocp`` releases must be releases olm-check knows (its table plus the
  configuration's ``ocp_releases``).
* ``nothing_checked``: a run that found no bundle, no CatalogSource manifest and no finding
  checked nothing (an empty directory, unrelated YAML, a mistyped path): the CLI exits 2
  unless ``--allow-empty``.
"""
from __future__ import annotations

import os
from typing import Optional

from . import layout
from .suggest import did_you_mean
from .usage import Usage


class Refused(Exception):
    """A usage error the CLI reports on one line (exit 2)."""


def expand(paths: list) -> list:
    out = []
    for p in paths:
        q = _operator_for(p)
        out.append(q if q is not None else p)
    return out


def _operator_for(path: str) -> Optional[str]:
    """The operator directory ``path`` belongs to when it is an operator's ci.yaml or a file
    or directory of its file-based catalog (``layout``); None otherwise."""
    full = os.path.abspath(path)
    if os.path.basename(full) in ("ci.yaml", "ci.yml"):
        place = layout.locate(full)
        if place is None or place.operator is None or os.path.dirname(full) != place.operator_dir:
            return None
    else:
        place = layout.catalog_place(full)
        if place is None:
            return None
    op_dir = place.operator_dir
    if not os.path.isdir(op_dir):
        return None
    if os.path.isabs(path):
        return op_dir
    rel = os.path.relpath(op_dir)
    return rel if not rel.startswith("..") else op_dir


def parse_target(s: Optional[str]) -> Optional[list]:
    """``--ocp 4.16,v4.17`` -> ["4.16", "4.17"] (None when not given); ``Usage`` for anything else."""
    if not s:
        return None
    out = []
    for part in s.split(","):
        part = part.strip().lstrip("v")
        bits = part.split(".")
        if len(bits) != 2 or not all(b.isdigit() for b in bits):
            raise Usage(f"--ocp: '{part}' is not an OpenShift release such as 4.16")
        out.append(f"{int(bits[0])}.{int(bits[1])}")
    return out


def check_ocp(target: Optional[list], paths: list, config_path: Optional[str]) -> None:
    """Refuse ``--ocp`` releases that are not in the release table (with the configuration's
    additions); the message names the known range and the closest releases."""
    if not target:
        return
    from .roots import config_path as default_config
    from .config_file import ConfigError, load_config
    from .versions import OcpTable

    try:
        cfg = load_config(config_path or default_config(paths), required=bool(config_path))
        extra = cfg.ocp_releases
    except ConfigError:
        extra = None  # the run itself reports the configuration's problem
    table = OcpTable.load(extra)
    known = [r.ocp for r in table.releases]
    for v in target:
        if table.get(v) is None:
            raise Refused(f"--ocp {v}: not an OpenShift release olm-check knows{did_you_mean(v, known)}; "
                          f"it knows {table.first.ocp}-{table.newest.ocp} (add one with ocp_releases: in .olm-check.yaml)")


def nothing_checked(res) -> bool:
    """True when a check run (``api.Result``) found nothing at all to check."""
    repo = res.repo
    return not (repo.bundle_refs or repo.catalog_sources or repo.loose_files or res.findings)


def nothing_message(paths: list) -> str:
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    if any(layout.in_config_sources(os.path.relpath(os.path.abspath(p))) for p in paths):
        return (f"nothing to check in {shown}: config/ holds the operator-sdk/kubebuilder sources (config/manifests/ is "
                "the input of `make bundle`), never a bundle; check the bundle `make bundle` writes (bundle/), "
                "or pass --allow-empty to accept an empty run")
    return (f"nothing to check in {shown}: no bundle (a directory with manifests/ and metadata/), operator "
            "or CatalogSource manifest there; check the path, or pass --allow-empty to accept an empty run")


def outside_git(paths: list) -> bool:
    from .roots import git_toplevel

    return git_toplevel(os.path.abspath(paths[0] if paths else ".")) is None


def first_line(e: BaseException) -> str:
    """An error's first line (git's own message, not its usage text)."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
