"""The library entry point: check paths and get the report, as the CLI and the Action do."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .config import Config
from .config_file import ConfigError, load_config
from .context import Context, IgnoreScope
from .discover import UsageError, plan
from .engine import exit_code
from .gates import CatalogSource
from .roots import config_path as config_file, repo_root
from .report import not_ga
from .report.run import BundleEntry, RunReport
from .rules import load_all


@dataclass(frozen=True)
class Trusted:
    """What a change may not decide for itself, taken from elsewhere (``check(trusted=)``)."""

    catalog: Optional[CatalogSource] = None  # the catalog's config.yaml and catalogs/ releases
    ignores: Optional[IgnoreScope] = None  # the inline ignores that count (None: all)


class CheckError(Exception):
    """A usage or environment error (exit code 2)."""


@dataclass
class Result:
    run: RunReport  # the run's report, as every renderer and the Action take it
    findings: list
    repo: object  # the planned Repository: bundle_refs and facts (bundles are not kept)
    config: Config
    profile: str
    fail_on: str

    @property
    def report(self) -> dict:
        """The JSON report (the documented contract) as a dict."""
        return self.run.to_json()

    @property
    def exit_code(self) -> int:
        return exit_code(self.findings, self.fail_on)


def target_of(repo, chosen: Optional[str], source=None) -> tuple:
    """(the catalog repository's ``gates.Catalog`` or None, the run's target): ``chosen``
    (``--profile`` or the config file's ``profile``), else the organization the catalog
    repository's root config.yaml names (community-operators, certified-operators,
    redhat-marketplace), else community. ``source`` (``gates.CatalogSource``): that
    config.yaml and catalogs/ releases from elsewhere (the pull request's base)."""
    from .gates import read_catalog, target_of_organization

    catalog = None
    root = getattr(repo, "root", None)
    if root and getattr(repo, "reader", None) is not None:
        catalog = read_catalog(repo.reader, root, source)
        if catalog is not None and catalog.file is not None:
            # a config.yaml the run cannot read is a finding, as any file
            from .rules.format import bundle_layout, yaml_duplicate_key, yaml_limits, yaml_syntax

            for m in (yaml_syntax, yaml_duplicate_key, yaml_limits, bundle_layout):
                repo.problems.extend(m.findings_in([catalog.file]))
    org = target_of_organization(catalog.organization) if catalog is not None else None
    return catalog, chosen or org or "community"


def check(paths: list, config_path: Optional[str] = None, profile: Optional[str] = None,
          fail_on: Optional[str] = None, target: Optional[list] = None,
          changed: Optional[list] = None, changes: Optional[list] = None,
          root: Optional[str] = None, jobs: int = 1, cache_dir: Optional[str] = None,
          shard: Optional[tuple] = None, progress=None, trusted: Optional[Trusted] = None) -> Result:
    """Check ``paths`` and build the report. Bundles are checked one at a time and dropped
    (``runner.run``): ``jobs`` worker processes (1: in this process), ``cache_dir``
    a result cache (``checker.runner.cache``), ``shard=(index, count)`` (0-based) only the operators
    of that shard (``discover.plan``), ``progress(done, total)`` called as bundles finish.

    ``changes`` (``FileChange`` list of a PR or ``--changed-since``): only the bundles they
    touch are checked, and the change list is on the model for ``pr-shape``. ``root`` with
    an empty ``paths``: nothing to load there (the change list touched nothing loadable).

    ``trusted``: what the change may not decide for itself, from elsewhere (the Action under
    ``config_from_base``): the catalog's config.yaml and releases, the inline ignores that count."""
    load_all()
    if changes is not None and changed is None:
        from .changes import touched_paths

        changed = touched_paths(changes)
    paths = paths if (paths or root is not None) else ["."]
    root = repo_root(paths or [root])
    try:
        cfg = load_config(config_path or config_file(paths or [root]), required=bool(config_path))
    except ConfigError as e:
        raise CheckError(str(e))
    fail_on = fail_on or cfg.fail_on or "error"
    try:
        repo = plan(paths, cfg.limits, changed, root=root, shard=shard, catalogs=False, exclude=cfg.exclude)
    except UsageError as e:
        raise CheckError(str(e))
    catalog, profile = target_of(repo, profile or cfg.profile, trusted.catalog if trusted is not None else None)
    if changes is not None:
        from .changes import attach

        attach(repo, changes)
    ctx = Context(config=cfg, profile=profile, target=target, catalog=catalog,
                  ignores=trusted.ignores if trusted is not None else None)
    cache = None
    if cache_dir:
        from .runner.cache import Cache, unsafe_reason

        reason = unsafe_reason(cache_dir, list(paths) + [root])
        if reason is not None:
            raise CheckError(f"--cache {cache_dir}: refused: {reason}")
        try:
            cache = Cache(cache_dir)
        except (OSError, Exception) as e:  # sqlite3.Error included
            raise CheckError(f"--cache {cache_dir}: cannot use it as a cache ({e})")
    from .runner import run
    from .runner.merge import bundle_order
    from .runner.processes import collector_tuned

    with collector_tuned():
        try:
            findings = run(repo, ctx, jobs=jobs, cache=cache, progress=progress)
        finally:
            if cache is not None:
                cache.close()
        bundles = sorted((BundleEntry.of_facts(f) for f in repo.facts if f.checked), key=lambda e: bundle_order(e.path))
        run_report = RunReport.build(bundles, findings, not_ga(ctx.ocp), fail_on=fail_on)
    return Result(run_report, findings, repo, cfg, profile, fail_on)
