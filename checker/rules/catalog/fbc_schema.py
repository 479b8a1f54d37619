"""
What: every blob of `catalogs/<release>/<operator>/catalog.{yaml,json}` is checked as
`opm validate` checks it: each blob has a `schema`; `olm.package` has a DNS-1123 name and
a `defaultChannel` that exists; `olm.channel` belongs to a known package, has entries that
are bundles of the package, exactly one head, no `replaces` cycle, no stranded bundle (one
neither on the replaces chain from the head nor skipped by it), valid `skipRange`, no
empty `skips`; `olm.bundle` has exactly one `olm.package` property naming its package
with a strict semver version, an `image` unless its objects are inline, parsable image
references, is in some channel, and no two bundles share a version; `olm.deprecations`
appears once per package, its entries name an existing package/channel/bundle and carry
a `message`.

Why: catalog CI runs `opm validate` on the catalogs and refuses the pull request; a
catalog that does not validate cannot be built or served.

Fix: correct the blob at the line shown (usually by regenerating the catalog from its
template with `make catalogs` / `opm alpha render-template`).

Bad:
    schema: olm.channel
    package: foo
    name: stable
    entries:
      - name: foo.v1.0.0
      - name: foo.v1.1.0      # nothing replaces foo.v1.0.0: two heads
Good:
    entries:
      - name: foo.v1.0.0
      - name: foo.v1.1.0
        replaces: foo.v1.0.0
"""
from __future__ import annotations

import re

from ...catalogs import checked_operators
from ...context import Context
from ...model import Repository
from ...nodes import Mapping, Scalar, Sequence
from ...upstream.blangsemver import SemverError, parse_range
from ...upstream.blangsemver import parse as parse_semver
from ...versions import vkey
from .. import default_detail, define, finding, refusal
from ..lib.fbc_blobs import Blob as _Blob
from ..lib.fbc_blobs import get as _get
from ..lib.fbc_blobs import items as _items
from ..lib.fbc_blobs import val as _val
from ..lib.loader_problems import kind_of

RULE = define("fbc-schema", "A file-based catalog blob breaks the rules opm validate enforces", __doc__, category="catalog", refused_by=[
    refusal("opm", "`opm validate` (and rendering or serving the catalog) refuses a catalog whose packages, channels, bundles "
            "or deprecations break its model validation", "https://github.com/operator-framework/operator-registry/blob/master/alpha/model/model.go"),
    refusal("catalog-ci", "the pipeline runs `opm validate` on every catalog a pull request changes and fails it",
            "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/opm.py"),
])
# the why of a finding whose message says what to put right: who refuses it
WHY = default_detail(RULE.id)


DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
# a docker reference: [registry[:port]/]path[:tag][@digest]
_IMAGE_REF = re.compile(
    r"(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?/)?"
    r"[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*)*"
    r"(?::[\w][\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?")


def valid_image(ref: str) -> bool:
    return bool(ref) and len(ref) <= 4096 and _IMAGE_REF.fullmatch(ref) is not None


def _is_map(n) -> bool:
    return isinstance(n, (Mapping, dict))


def _kind(n) -> str:
    if hasattr(n, "type_name"):
        return n.type_name()
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", type(None): "empty"}.get(type(n), "a number")


def _fnd(cat, blob, node, message, detail=WHY):
    """An fbc-schema finding at ``node`` (a node of a YAML catalog), else at the blob."""
    if isinstance(node, (Mapping, Sequence, Scalar)):
        return RULE.at(cat.rel, None, message, detail=detail, ocp=[cat.ocp], line=node.line, column=node.col)
    return RULE.at(cat.rel, None, message, detail=detail, ocp=[cat.ocp], line=blob.pos.line, column=blob.pos.column)


@RULE.check(scope="repo")
def fbc_schema(repo: Repository, ctx: Context):
    fbc = repo.fbc
    wanted = checked_operators(repo)
    for name in sorted(wanted):
        oc = fbc.get(name)
        if oc is None:
            continue
        for ocp in sorted(oc.catalogs, key=vkey):
            cat = oc.catalogs[ocp]
            if cat.missing:
                continue
            for p in cat.problems:  # the loader's problems with the catalog file, under their rules' ids (yaml-syntax, ...)
                yield finding(p.rule, cat.rel, None, p.message, line=p.line, column=p.column, kind=kind_of(p),
                              detail=p.detail)
            if cat.readable:
                yield from _validate_catalog(cat)


def _validate_catalog(cat):
    packages: dict = {}  # name -> [blob]
    channels: list = []
    bundles: list = []
    deprecations: list = []
    for blob in cat.blobs:
        w = _Blob(blob)
        root = blob.root
        if not _is_map(root):
            yield _fnd(cat, blob, root, f"this catalog entry is {_kind(root)}, not a blob (a mapping with a 'schema')", "opm cannot read it. Remove it or write the blob.")
            continue
        sch = w.node("schema")
        if sch is None:
            yield _fnd(cat, blob, root, "this blob has no 'schema' key", "opm validate refuses blobs it cannot classify. Add 'schema: olm.package', 'olm.channel', 'olm.bundle' or 'olm.deprecations'.")
            continue
        if not isinstance(_val(sch), str) or not _val(sch):
            yield _fnd(cat, blob, sch, f"'schema' must be a non-empty string, not {_kind(sch)}")
            continue
        if blob.schema == "olm.package":
            n = _val(w.node("name"))
            packages.setdefault(n if isinstance(n, str) else None, []).append(w)
        elif blob.schema == "olm.channel":
            channels.append(w)
        elif blob.schema == "olm.bundle":
            bundles.append(w)
        elif blob.schema == "olm.deprecations":
            deprecations.append(w)
    # olm.package
    for pname, ws in packages.items():
        for w in ws:
            nn = w.node("name")
            if not isinstance(pname, str) or not pname:
                yield _fnd(cat, w.b, nn if nn is not None else w.b.root, "the olm.package blob has no name", "opm cannot build the package. Add 'name: <package>'.")
                continue
            if len(pname) > 63 or not DNS1123_LABEL.fullmatch(pname):
                yield _fnd(cat, w.b, nn, f"the package name '{pname}' is not a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)", "opm refuses it. Rename the package.")
        if isinstance(pname, str) and len(ws) > 1:
            for w in ws[1:]:
                yield _fnd(cat, w.b, w.node("name"), f"the package '{pname}' is declared by more than one olm.package blob (first at line {ws[0].b.pos.line})", "opm refuses duplicate packages. Keep one.")
    chan_names: dict = {}  # (package, channel) -> blob
    for w in channels:
        pkg, nm = _val(w.node("package")), _val(w.node("name"))
        if not isinstance(pkg, str) or not pkg:
            yield _fnd(cat, w.b, w.node("package") or w.b.root, "the olm.channel blob has no 'package'", "opm cannot place the channel. Add 'package: <package>'.")
            continue
        if not isinstance(nm, str) or not nm:
            yield _fnd(cat, w.b, w.node("name") or w.b.root, "the olm.channel blob has no 'name'", "Add the channel name.")
            continue
        if pkg not in packages:
            yield _fnd(cat, w.b, w.node("package"), f"the channel '{nm}' belongs to package '{pkg}', which has no olm.package blob in this catalog", "opm refuses it. Add the olm.package blob or correct 'package'.")
        if (pkg, nm) in chan_names:
            yield _fnd(cat, w.b, w.node("name"), f"the channel '{nm}' of package '{pkg}' is declared twice (first at line {chan_names[(pkg, nm)].b.pos.line})", "opm refuses duplicate channels. Merge their entries.")
            continue
        chan_names[(pkg, nm)] = w
    for pname, ws in packages.items():
        if not isinstance(pname, str):
            continue
        w = ws[0]
        dc = w.node("defaultChannel")
        if dc is None:
            yield _fnd(cat, w.b, w.b.root, f"the package '{pname}' has no defaultChannel", "opm validate requires one. Add 'defaultChannel: <channel>'.")
        elif not isinstance(_val(dc), str) or (pname, _val(dc)) not in chan_names:
            have = sorted(c for p, c in chan_names if p == pname)
            yield _fnd(cat, w.b, dc, f"the default channel '{_val(dc)}' of package '{pname}' is not one of its channels ({', '.join(have) or 'none'})", "opm refuses the package. Set defaultChannel to one of them.")
    # olm.bundle
    bundle_by_pkg: dict = {}
    versions: dict = {}
    for w in bundles:
        pkg, nm = _val(w.node("package")), _val(w.node("name"))
        if not isinstance(nm, str) or not nm:
            yield _fnd(cat, w.b, w.node("name") or w.b.root, "the olm.bundle blob has no 'name' (the CSV name)", "opm refuses it. Add it.")
            continue
        if not isinstance(pkg, str) or not pkg:
            yield _fnd(cat, w.b, w.node("package") or w.b.root, f"the bundle '{nm}' has no 'package'", "Add 'package: <package>'.")
            continue
        if pkg not in packages:
            yield _fnd(cat, w.b, w.node("package"), f"the bundle '{nm}' belongs to package '{pkg}', which has no olm.package blob in this catalog", "opm refuses it.")
        bundle_by_pkg.setdefault(pkg, {})[nm] = w
        props = w.node("properties")
        items = _items(props)
        pkg_props = []
        inline = False
        if props is not None and items is None:
            yield _fnd(cat, w.b, props, f"'properties' of bundle '{nm}' must be a list, not {_kind(props)}")
            items = []
        for p in items or []:
            t = _val(_get(p, "type"))
            if t == "olm.package":
                pkg_props.append(p)
            elif t in ("olm.bundle.object", "olm.csv.metadata"):
                inline = True
        if len(pkg_props) != 1:
            where = props if props is not None else w.b.root
            yield _fnd(cat, w.b, where, f"the bundle '{nm}' has {len(pkg_props)} olm.package properties", f"opm requires exactly one, with the packageName '{pkg}' and the bundle's version.")
        else:
            val = _get(pkg_props[0], "value")
            pn, ver = _val(_get(val, "packageName")), _val(_get(val, "version"))
            vnode = _get(val, "version") or val or pkg_props[0]
            if pn != pkg:
                yield _fnd(cat, w.b, _get(val, "packageName") or vnode, f"the olm.package property of bundle '{nm}' names package '{pn}', but the blob is in package '{pkg}'", "opm refuses the mismatch. Make them the same.")
            if not isinstance(ver, str):
                yield _fnd(cat, w.b, vnode, f"the olm.package property of bundle '{nm}' has no version string", "opm needs the bundle's semantic version there.")
            else:
                try:
                    v = parse_semver(ver)
                    prev = versions.get((pkg, v.key()))
                    if prev is not None:
                        yield _fnd(cat, w.b, vnode, f"the bundles '{prev}' and '{nm}' of package '{pkg}' both have version {ver}", "opm cannot order them. Give each bundle its own version.")
                    else:
                        versions[(pkg, v.key())] = nm
                except SemverError as exc:
                    yield _fnd(cat, w.b, vnode, f"the version '{ver}' of bundle '{nm}' is not a strict semantic version", f"opm refuses it ({exc}). Write major.minor.patch, e.g. 1.2.0.")
        img = w.node("image")
        if img is None or _val(img) in (None, ""):
            if not inline:
                yield _fnd(cat, w.b, img if img is not None else w.b.root, f"the bundle '{nm}' has no image and no inline objects (olm.bundle.object)", "OLM cannot unpack it. Set 'image' to the bundle image.")
        elif not isinstance(_val(img), str) or not valid_image(_val(img)):
            yield _fnd(cat, w.b, img, f"the image '{_val(img)}' of bundle '{nm}' is not a valid image reference", "OLM cannot pull it. Write registry/repository[:tag][@sha256:digest].")
        rel = _items(w.node("relatedImages"))
        for ri in rel or []:
            iv = _val(_get(ri, "image"))
            if isinstance(iv, str) and iv and not valid_image(iv):
                yield _fnd(cat, w.b, _get(ri, "image"), f"the related image '{iv}' of bundle '{nm}' is not a valid image reference", "Mirroring and disconnected installs cannot use it.")
    # olm.channel contents
    in_channel: set = set()
    for (pkg, cname), w in chan_names.items():
        yield from _validate_channel(cat, w, pkg, cname, bundle_by_pkg.get(pkg, {}), in_channel)
    for pkg, bs in bundle_by_pkg.items():
        if pkg not in packages:
            continue
        for nm, w in bs.items():
            if (pkg, nm) not in in_channel:
                yield _fnd(cat, w.b, w.node("name"), f"the bundle '{nm}' is in no channel of package '{pkg}'", "opm refuses bundles no channel lists. Add it to a channel's entries or remove the blob.")
    # olm.deprecations
    seen_dep: dict = {}
    for w in deprecations:
        pkg = _val(w.node("package"))
        if not isinstance(pkg, str) or not pkg:
            yield _fnd(cat, w.b, w.node("package") or w.b.root, "the olm.deprecations blob has no 'package'", "Add the package it deprecates things of.")
            continue
        if pkg in seen_dep:
            yield _fnd(cat, w.b, w.node("package"), f"package '{pkg}' has more than one olm.deprecations blob (first at line {seen_dep[pkg]})", "opm allows one per package. Merge them.")
            continue
        seen_dep[pkg] = w.b.pos.line
        if pkg not in packages:
            yield _fnd(cat, w.b, w.node("package"), f"the olm.deprecations blob names package '{pkg}', which has no olm.package blob in this catalog")
        entries = _items(w.node("entries"))
        if entries is None:
            yield _fnd(cat, w.b, w.node("entries") or w.b.root, "the olm.deprecations blob needs an 'entries' list")
            continue
        for e in entries:
            ref = _get(e, "reference")
            sch, rname = _val(_get(ref, "schema")), _val(_get(ref, "name"))
            msg = _val(_get(e, "message"))
            at = ref if ref is not None else e
            if not isinstance(msg, str) or not msg.strip():
                yield _fnd(cat, w.b, e, "this deprecation entry has no 'message'", "opm requires one (it is what users see). Add a message.")
            if sch == "olm.package":
                if rname not in (None, "") and rname != pkg:
                    yield _fnd(cat, w.b, at, f"a package deprecation must not name another package ('{rname}')")
            elif sch == "olm.channel":
                if (pkg, rname) not in chan_names:
                    yield _fnd(cat, w.b, at, f"the deprecated channel '{rname}' does not exist in package '{pkg}'", "opm refuses it.")
            elif sch == "olm.bundle":
                if rname not in bundle_by_pkg.get(pkg, {}):
                    yield _fnd(cat, w.b, at, f"the deprecated bundle '{rname}' does not exist in package '{pkg}'", "opm refuses it.")
            else:
                yield _fnd(cat, w.b, at, f"the deprecation reference schema '{sch}' is not one of olm.package, olm.channel, olm.bundle")


def _validate_channel(cat, w, pkg, cname, bundles, in_channel):
    entries_node = w.node("entries")
    entries = _items(entries_node)
    if not entries:
        yield _fnd(cat, w.b, entries_node if entries_node is not None else w.b.root,
                   f"the channel '{cname}' of package '{pkg}' has no entries", "opm requires at least one bundle per channel.")
        return
    nodes = {}
    replaces, skips, ranges = {}, {}, {}
    for e in entries:
        nm = _val(_get(e, "name"))
        if not isinstance(nm, str) or not nm:
            yield _fnd(cat, w.b, e, f"an entry of channel '{cname}' has no 'name'", "Every entry names a bundle.")
            continue
        if nm in nodes:
            yield _fnd(cat, w.b, _get(e, "name"), f"the bundle '{nm}' is listed twice in channel '{cname}'", "opm refuses duplicate entries.")
            continue
        nodes[nm] = e
        in_channel.add((pkg, nm))
        if nm not in bundles:
            yield _fnd(cat, w.b, _get(e, "name"), f"channel '{cname}' lists '{nm}', but no olm.bundle blob of package '{pkg}' has that name in this catalog", "opm refuses it.")
        r = _val(_get(e, "replaces"))
        if isinstance(r, str) and r:
            replaces[nm] = r
        sk = _get(e, "skips")
        sk_items = _items(sk)
        if sk is not None and sk_items is None and _val(sk) is not None:
            yield _fnd(cat, w.b, sk, f"'skips' of entry '{nm}' must be a list of bundle names")
        for s in sk_items or []:
            sv = _val(s)
            if not isinstance(sv, str) or not sv.strip():
                yield _fnd(cat, w.b, s if isinstance(s, (Scalar, Mapping, Sequence)) else e, f"entry '{nm}' of channel '{cname}' has an empty 'skips' item", "opm refuses it. Remove it or name the skipped bundle.")
            else:
                skips.setdefault(nm, []).append(sv)
        sr = _get(e, "skipRange")
        if sr is not None and _val(sr) not in (None, ""):
            if not isinstance(_val(sr), str):
                yield _fnd(cat, w.b, sr, f"the skipRange of entry '{nm}' must be a string such as '>=1.0.0 <1.2.0'")
            else:
                try:
                    ranges[nm] = parse_range(_val(sr))
                except SemverError as ex:
                    yield _fnd(cat, w.b, sr, f"the skipRange '{_val(sr)}' of entry '{nm}' is not a range OLM can parse ({ex})", "opm refuses it. Write e.g. '>=1.0.0 <1.2.0'.")
    if not nodes:
        return
    incoming = {}
    for nm, r in replaces.items():
        incoming.setdefault(r, []).append(nm)
    for nm, sks in skips.items():
        for s in sks:
            incoming.setdefault(s, []).append(nm)
    heads = [nm for nm in nodes if nm not in incoming]
    if not heads:
        # every entry is replaced or skipped by another: a cycle somewhere
        start = next(iter(nodes))
        cyc = _cycle_from(start, replaces)
        yield _fnd(cat, w.b, entries_node, f"channel '{cname}' has no head: every entry is replaced or skipped by another{(', the replaces chain loops: ' + ' -> '.join(cyc)) if cyc else ''}", "opm refuses it. Break the cycle.")
        return
    if len(heads) > 1:
        chains = "; ".join(" -> ".join(reversed(_chain(h, replaces, nodes))) for h in heads[:4])
        yield _fnd(cat, w.b, _get(nodes[heads[1]], "name") or entries_node,
                   f"channel '{cname}' has {len(heads)} heads, {', '.join(heads[:3])}{', …' if len(heads) > 3 else ''}", f"Nothing replaces or skips them, and opm requires exactly one (graph: {chains}). Make the newest entry replace (or skip) the others.")
        return
    head = heads[0]
    chain, seen, cur = [], set(), head
    while cur is not None and cur in nodes:
        if cur in seen:
            yield _fnd(cat, w.b, _get(nodes[cur], "replaces") or entries_node,
                       f"the replaces chain of channel '{cname}' loops: {' -> '.join(list(reversed(chain)) + [cur])}", "opm refuses cycles. Break it.")
            return
        seen.add(cur)
        chain.append(cur)
        cur = replaces.get(cur)
    covered = set(chain)
    for c in chain:
        covered.update(skips.get(c, []))
    stranded = [nm for nm in nodes if nm not in covered]
    if stranded:
        yield _fnd(cat, w.b, _get(nodes[stranded[0]], "name") or entries_node,
                   f"channel '{cname}' has stranded bundles ({', '.join(stranded)}): they are neither on the replaces chain from the head ({' -> '.join(reversed(chain))}) nor skipped by it, so no upgrade reaches or leaves them", "opm refuses the channel. Add them to the chain (replaces) or to the head's skips.")


def _chain(start, replaces, nodes, limit=12):
    out, seen, cur = [], set(), start
    while cur is not None and cur not in seen and len(out) < limit:
        out.append(cur)
        seen.add(cur)
        cur = replaces.get(cur)
        if cur is not None and cur not in nodes:
            out.append(cur)
            break
    return out


def _cycle_from(start, replaces):
    seen, order, cur = {}, [], start
    while cur is not None and cur not in seen:
        seen[cur] = len(order)
        order.append(cur)
        cur = replaces.get(cur)
    if cur is None:
        return []
    return order[seen[cur]:] + [cur]
