"""
What: for an operator whose ci.yaml sets `fbc.enabled: true`, the catalogs under
`catalogs/v4.X/<operator>/` decide where each bundle is published (catalog CI skips label
checks and `catalog_mapping` drives the catalogs). olm-check reports a bundle whose
`com.redhat.openshift.versions` label names other releases than the catalogs that list
it: listed in a catalog the label excludes, or left out of a catalog the label includes
between the first and the last catalog that list it (a gap; bundles pruned from newer
catalogs are normal and not reported). Releases whose catalog file is missing from the
checkout are left out; a bundle no catalog lists yet (a new bundle) is not reported.

Why: the label is what people and tools read to know where the bundle is offered; when
it disagrees with the catalogs it misleads them. olm-check itself uses the catalogs'
releases (not the label) for every version-aware rule of such bundles.

Fix: make the label match the catalogs (or change the catalogs: `catalog_mapping` in
ci.yaml and the catalog templates).

Bad (label v4.14-v4.17, listed in catalogs/v4.18 ... v4.21):
    com.redhat.openshift.versions: "v4.14-v4.17"
Good:
    com.redhat.openshift.versions: "v4.18"
"""
from __future__ import annotations

from typing import Iterable

from ...context import Context
from ...model import Repository
from ...versions import vkey
from .. import define

# For an FBC operator (ci.yaml ``fbc.enabled: true``) the catalogs, not the label, decide where a
# bundle is published (versions.md "who decides publication"): ``checker.publication`` settles it
# before any rule runs (``bundle.versions.catalog_ocp``); this rule reports a label that disagrees.

RULE = define("fbc-ocp-mismatch", "An FBC operator's bundle label disagrees with the catalogs that list it", __doc__,
              category="catalog")



def _releases_of_range(rng, table) -> list:
    lo, hi = rng
    return [r.ocp for r in table.releases if (lo is None or r.key >= lo) and (hi is None or r.key <= hi)]


def _span(releases: Iterable[str]) -> str:
    rels = sorted(set(releases), key=vkey)
    if not rels:
        return "none"
    out, start, prev = [], rels[0], rels[0]
    for r in rels[1:]:
        a, b = vkey(prev), vkey(r)
        if b[0] == a[0] and b[1] == a[1] + 1:
            prev = r
            continue
        out.append(start if start == prev else f"{start}-{prev}")
        start = prev = r
    out.append(start if start == prev else f"{start}-{prev}")
    return ", ".join(out)


@RULE.check(scope="repo")
def fbc_ocp_mismatch(repo: Repository, ctx: Context):
    fbc = repo.fbc
    for f in repo.facts:
        if not f.checked or not f.operator or not f.csv_name or f.label_range is None:
            continue
        oc = fbc.get(f.operator)
        if oc is None or not oc.fbc_enabled:
            continue
        known = {ocp: cat for ocp, cat in oc.catalogs.items() if cat.known}
        listed = sorted((ocp for ocp, cat in known.items() if f.csv_name in cat.bundle_names), key=vkey)
        if not listed:
            continue  # no catalog lists it yet (a new bundle): the label decides
        label_rel = set(_releases_of_range(f.label_range, ctx.ocp))
        extra = [r for r in listed if r not in label_rel]
        # the reverse: the label includes a release whose catalog of this operator exists and
        # omits the bundle. Releases below the first catalog listing it are ignored: bundles
        # pruned from newer catalogs are normal, but a label that starts earlier than any
        # catalog it is in, or a gap, still misleads.
        missing = [r for r in sorted(label_rel, key=vkey) if r in known and r not in listed
                   and vkey(listed[0]) <= vkey(r) <= vkey(listed[-1])]
        if not extra and not missing:
            continue
        parts = []
        if extra:
            parts.append(f"catalogs for {_span(extra)} list it although the label excludes {'them' if len(extra) > 1 else 'it'}")
        if missing:
            parts.append(f"the label includes {_span(missing)} whose catalog{'s do' if len(missing) > 1 else ' does'} not list it")
        label = f.label or ""
        canon = _canonical_for(listed, ctx)
        pos = f.label_pos or f.annotations_pos
        yield RULE.at(pos.path if pos else f.rel, None,
                      f"the label '{label}' disagrees with the catalogs: they list it in {_span(listed)}",
                      detail=f"The label means releases {_span(label_rel & set(r.ocp for r in ctx.ocp.releases))}: "
                      f"{'; '.join(parts)}. For an FBC operator the catalogs decide where a bundle is published (olm-check "
                      f"uses {_span(listed)} for its version checks), so the label misleads readers and tools. Make the "
                      f"label match the catalogs{canon}, or change the catalogs (ci.yaml catalog_mapping).",
                      ocp=sorted(set(extra) | set(missing), key=vkey),
                      line=pos.line if pos else 1, column=pos.column if pos else 1)


def _canonical_for(listed: list, ctx) -> str:
    lo, hi = listed[0], listed[-1]
    newest = ctx.ocp.newest.ocp
    if hi == newest:
        return f" (e.g. \"v{lo}\")"
    if lo == hi:
        return f" (e.g. \"=v{lo}\")"
    return f" (e.g. \"v{lo}-v{hi}\")"
