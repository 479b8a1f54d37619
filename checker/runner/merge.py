"""``olm-check merge``: the JSON reports of a sharded audit (``--shard I/N``) -> one report,
the same as one unsharded run would have written.

Shards hold whole operators (``discover.plan``), so each bundle is in exactly one shard and
each repository rule saw all bundles of an operator. Findings outside bundles (loose
CatalogSource manifests, for example) are reported by every shard; identical findings are
kept once, as the unsharded run's settling does.
"""
from __future__ import annotations

from dataclasses import replace

from .. import TOOL_NAME
from ..finding import Finding
from ..report.run import BundleEntry, RunReport


class MergeError(Exception):
    pass


def bundle_order(path: str) -> tuple:
    """The order bundles are found in (directory walk, names sorted at each level)."""
    return tuple(path.split("/"))


def merge_reports(reports: list) -> tuple:
    """``reports``: [(name, parsed JSON report)]. Returns (the merged JSON report, its findings)."""
    run = merged(reports)
    return run.to_json(), list(run.findings)


def merged(reports: list) -> RunReport:  # noqa: C901
    """``reports``: [(name, parsed JSON report)]. Returns the merged report."""
    version = None
    shards: dict = {}
    count = None
    bundles: dict = {}
    findings: list = []
    seen = set()
    preview: set = set()  # releases not GA, as each shard's release table had them
    for name, r in reports:
        if not isinstance(r, dict) or not isinstance(r.get("tool"), dict) or r["tool"].get("name") != TOOL_NAME \
                or not isinstance(r.get("findings"), list) or not isinstance(r.get("bundles"), list):
            raise MergeError(f"{name}: not an olm-check JSON report (run the shards with --format json)")
        v = r["tool"].get("version")
        if version is None:
            version = v
        elif v != version:
            raise MergeError(f"{name}: written by olm-check {v}, the others by {version}; run every shard with the same version")
        sh = r.get("shard")
        if sh is not None:
            if not isinstance(sh, dict) or not isinstance(sh.get("index"), int) or not isinstance(sh.get("count"), int):
                raise MergeError(f"{name}: its 'shard' entry is not {{index, count}}")
            if count is None:
                count = sh["count"]
            elif sh["count"] != count:
                raise MergeError(f"{name}: shard {sh['index']}/{sh['count']}, but another report is a shard of {count}")
            if sh["index"] in shards:
                raise MergeError(f"{name}: shard {sh['index']}/{count} is also in {shards[sh['index']]}")
            shards[sh["index"]] = name
        preview.update(v for v in r.get("ocp_not_ga") or () if isinstance(v, str))
        for b in r["bundles"]:
            bundles.setdefault(b.get("path"), b)
        for d in r["findings"]:
            try:
                f = Finding.from_json(d)
            except (KeyError, TypeError, AttributeError) as e:
                raise MergeError(f"{name}: a finding is not in the report format ({e})")
            key = (f.rule, f.path, f.line, f.column, f.message)
            if key in seen:
                continue
            seen.add(key)
            findings.append(f)
    if count is not None:
        missing = [str(i) for i in range(1, count + 1) if i not in shards]
        if missing:
            raise MergeError(f"shard(s) {', '.join(missing)} of {count} missing: the merged report would not cover the catalog")
        if len(shards) != len(reports):
            raise MergeError("some reports are shards and some are not; merge the shards of one run")
    findings.sort(key=Finding.sort_key)
    ordered = [BundleEntry.from_json(bundles[p]) for p in sorted(bundles, key=lambda p: bundle_order(p or ""))]

    def release_key(v: str) -> tuple:
        return tuple(int(x) if x.isdigit() else 0 for x in v.split("."))

    report = RunReport.build(ordered, findings, sorted(preview, key=release_key))
    return replace(report, tool_version=version) if version is not None else report
