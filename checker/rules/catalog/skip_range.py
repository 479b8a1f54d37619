"""
What: the CSV annotation `olm.skipRange` must be a range in the syntax OLM parses
(github.com/blang/semver v4): comparators `=`, `!=`, `>`, `>=`, `<`, `<=` with full
`major.minor.patch` versions, separated by spaces (AND) and `||` (OR), e.g.
`>=1.0.0 <1.2.0`. No `v` (`<v1.2.0` reads as the comparator `<v`), no `^`/`~`. A hyphen
range (`1.0.0 - 2.0.0`) parses but means "exactly 1.0.0 and exactly 2.0.0" (it matches
nothing): warning.

An empty `olm.skipRange: ''` is the same as none: opm validates only a non-empty range and
OLM reads an empty one as no range: info.

Why: OLM parses the range with blang/semver and silently drops one it cannot parse, so
the versions it was meant to cover get no upgrade edge to the bundle (in a semver-mode
operator the version-order edges remain; only the skips are lost); opm v1.69.0 and later
refuse it outright (operator-registry alpha/model/model.go, commit 1ead90f3 of
2026-05-20, first in v1.69.0: `opm validate` and catalog rendering fail with "invalid
skipRange"), so a catalog holding it can no longer be built with current opm.

Fix: write the range as OLM reads it.

Bad:
    olm.skipRange: '<v1.2.0'
Good:
    olm.skipRange: '<1.2.0'
"""
from __future__ import annotations

from ...context import Context
from ...model import Repository
from ...upstream.blangsemver import check_range
from ...versions import clip
from .. import define, refusal
from ..lib.catalog import semver_mode

OPM_MODEL = "https://github.com/operator-framework/operator-registry/blob/master/alpha/model/model.go"
OLM_SOURCE = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/registry/resolver/source_registry.go"

RULE = define("skip-range", "olm.skipRange is not a semver range OLM can parse", __doc__, category="catalog", refused_by=[
    refusal("opm", "opm v1.69.0 and later refuse a bundle whose skipRange blang/semver cannot parse (`opm validate`, rendering "
            "and serving a catalog: \"invalid skipRange\")", OPM_MODEL),
    refusal("olm-upgrade", "OLM drops a skipRange it cannot parse, so the versions it was to cover get no upgrade edge",
            OLM_SOURCE),
])


@RULE.check(scope="repo")
def skip_range(repo: Repository, ctx: Context):
    for f in repo.facts:
        if not f.checked or f.skip_range is None:
            continue
        p = f.skip_range_pos
        path, line, col = (p.path, p.line, p.column) if p else (f.rel, 1, 1)
        if not f.skip_range.strip():
            # opm validates only a non-empty skipRange (alpha/model/model.go: `if b.SkipRange != ""`) and
            # OLM reads an empty one as none: the same as no annotation
            yield RULE.at(path, None, "olm.skipRange is empty, the same as no skipRange", kind="empty", line=line, column=col,
                          detail="opm validates only a non-empty skipRange and OLM reads an empty one as none, so nothing "
                          "refuses it and no version skips to this bundle through it. Remove the annotation, or write the "
                          "range this bundle should cover, e.g. '>=1.0.0 <1.2.0'.")
            continue
        err = check_range(f.skip_range)
        if err is not None:
            semver = semver_mode(repo.operators.get(f.operator) if f.operator else None)
            lost = ("In this semver-mode operator the edges from version order remain; what is lost are the skips: "
                    "the older versions the range was to cover cannot update straight to this bundle. " if semver else
                    "What is lost are the skips: the versions the range was to cover get no edge to this bundle, and "
                    "only spec.replaces (and spec.skips) remain. ")
            yield RULE.at(path, None, f"olm.skipRange '{clip(f.skip_range, 40)}' is not a range OLM can parse: {err}",
                          line=line, column=col, kind="unparsable",
                          detail="OLM (blang/semver) cannot read it and drops it, and opm v1.69.0 and later refuse a "
                          "catalog holding it in 'opm validate' (which the catalog pipeline runs, with opm v1.71.0) and "
                          "when serving it (\"invalid skipRange\", operator-registry alpha/model/model.go, commit "
                          "1ead90f3). " + lost
                          + "Write comparators with full versions, e.g. '>=1.0.0 <1.2.0' (OR with '||').")
        elif " - " in f.skip_range:
            yield RULE.at(path, None,
                          f"olm.skipRange '{clip(f.skip_range)}' is a hyphen range, which OLM reads as matching nothing",
                          line=line, column=col, kind="hyphen",
                          detail="OLM's parser drops the '-' and reads it as 'exactly one version AND exactly the other', which "
                          "matches nothing. Write '>=A <=B' instead.")
