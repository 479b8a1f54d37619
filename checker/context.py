"""What a rule may know besides the model: the run's settings, the version tables, and (for a
bundle of a catalog repository's operator) its ``OperatorContext``.

``Context`` is frozen: the runner and the engine never change the one they are given, they
check with a copy that differs where it says so (``dataclasses.replace(ctx, repo=view)``).
It sits below the rules (it imports the model, the configuration, the version tables and the
gates' data, never the engine, the rules or the report), so every rule function can name its
type: ``def check(bundle: Bundle, ctx: Context)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .config import Config
from .gates import Catalog, live_releases
from .model import OperatorContext, Repository
from .versions import ApiTable, OcpTable


@dataclass(frozen=True)
class IgnoreScope:
    """Which inline ``# olm-check: ignore`` comments count when the change may not decide its
    own verdict (the Action under ``config_from_base``): only those on lines the change leaves
    as the base has them. ``added``: path -> the lines the change adds or rewrites there (None:
    the whole file, a new one or one whose diff is unknown); a path it does not name is
    unchanged. ``unknown``: the change list itself is unknown, so no ignore counts."""

    added: Mapping[str, Optional[frozenset[int]]] = field(default_factory=dict)
    unknown: bool = False

    def honoured(self, path: str, line: int) -> bool:
        if self.unknown:
            return False
        if path not in self.added:
            return True
        lines = self.added[path]
        return lines is not None and line not in lines


@dataclass(frozen=True)
class Context:
    """The run's settings for the rules. ``ocp`` and ``apis`` default to the built-in tables
    extended by the configuration (``ocp_releases:``, ``apis:``)."""

    config: Config = field(default_factory=Config)
    profile: str = "community"
    ocp: OcpTable = None  # type: ignore[assignment]  # set by __post_init__ when not given
    apis: ApiTable = None  # type: ignore[assignment]  # set by __post_init__ when not given
    target: Optional[list[str]] = None  # --ocp: list of release strings, replaces every range
    repo: Optional[Repository] = None  # the planned repository (or the view repository rules run on)
    operator: Optional[OperatorContext] = None  # the operator of the bundle being checked
    # the catalog repository's own word (``gates.read_catalog``: its config.yaml's organization
    # and per-check waivers, its catalogs/ releases); None outside a catalog repository
    catalog: Optional[Catalog] = None
    # the inline ignores that count (None: all of them)
    ignores: Optional[IgnoreScope] = None

    def __post_init__(self) -> None:
        # the tables a Context is made without: loaded once, here (frozen: object.__setattr__,
        # as dataclasses document for a field computed at construction)
        if self.ocp is None:
            object.__setattr__(self, "ocp", OcpTable.load(self.config.ocp_releases))
        if self.apis is None:
            object.__setattr__(self, "apis", ApiTable.load(self.config.apis))

    def live(self) -> Optional[set[str]]:
        """The releases whose catalogs the target still builds (``gates.live_releases``)."""
        return live_releases(self.profile, self.catalog, [r.ocp for r in self.ocp.releases])

    def option(self, rule_id: str, name: str, default: Any = None) -> Any:
        return (self.config.options.get(rule_id) or {}).get(name, default)

    def submitted(self, rel: str) -> bool:
        """Does a change list (a pull request, ``--changed-since``) add or change the bundle at
        ``rel``? The pipelines' per-pull-request checks (yaml-lint) see only that bundle."""
        r = self.repo
        return r is not None and r.changes is not None and rel in (r.checked or ())
