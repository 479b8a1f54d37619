"""
What: the values of the CSV's descriptive fields have the shape and format the console
and catalog CI need: `maintainers` a list of `{name, email}` with an e-mail address;
`links` a list of `{name, url}` with a URL; `icon` exactly one entry with `base64data`
that decodes and a `mediatype` of image/gif, image/jpeg, image/png or image/svg+xml;
`displayName` at least 3 characters (at most 50 reads best); `description` at least 20
characters; `provider` a mapping whose `name` has at least 3 characters; `keywords` a
list of strings; `selector` a label selector (`matchLabels` a map of strings,
`matchExpressions` a list); `maturity` one of the levels the CSV documentation lists
(planning, pre-alpha, alpha, beta, stable, mature, inactive, deprecated: another value is
a warning, since the CSV CRD takes any string). (A missing field is `csv-required-fields`.)

Errors are what something refuses: the community catalog CI's `check_required_fields`
(a displayName without 3 characters, a description under 20, a provider name under 3,
an icon that is not base64 or has another mediatype), operator-sdk's operatorhub
validator run by that CI (an e-mail Go's `mail.ParseAddress` rejects, a URL Go's
`url.ParseRequestURI` rejects: no scheme and no leading `/`, a control character, a bad
%-escape, port or host character; more than one icon), and the API server (values of
the wrong type). Warnings are what nothing refuses but readers notice: a URL Go accepts
that is still not a working http(s) link (spaces in the path, no host, `mailto:`), an e-mail Go accepts that is unusual (a display name, no top-level domain),
an icon labelled SVG whose data is a raster image or the reverse (browsers do not guess
SVG), an empty keyword. Info: a `provider.url` that is not an http(s) URL (the OpenShift
console shows only `provider.name`, never the URL), raster data
under another raster mediatype (JPEG labelled image/png: browsers sniff raster images,
so the icon shows). A displayName over 50 characters is info: the
CI's pattern `.{3,50}` is matched as a prefix (only the minimum is enforced) and the
community documentation asks only for "a short, readable name".

Why: the console renders these on OperatorHub (a broken icon, a link that goes
nowhere); the catalog's CI fails the pull request for the errors.

Fix: correct the value as the finding's detail says.

Bad:
    spec:
      displayName: X
      maintainers:
        - name: Example Team
          email: team at example.com
Good:
    spec:
      displayName: Example Operator
      maintainers:
        - name: Example Team
          email: team@example.com
"""
from __future__ import annotations

import base64
import binascii
import difflib
import re
import string
from functools import lru_cache
from typing import Optional
from urllib.parse import urlsplit

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...upstream.go_parsers import go_mail_address_error, go_request_uri_error
from .. import define, refusal
from ..lib.csv import data, the_csv
from ..lib.csv_metadata import CSV_CRD, HUB_GO, PIPE_COMMUNITY
from ..lib.fixes import dq, fix_value
from ..lib.text import clip, is_blank, shown, text

_EMAIL = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}")

_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?")

# Go's url.ParseRequestURI reasons, told for people
_GO_URL_WHY = {
    "invalid URI for request": "no scheme such as https:// and not a path starting with /",
    "net/url: invalid control character in URL": "it holds a control character",
    "missing protocol scheme": "it starts with ':'",
    "empty url": "it is empty",
    "net/url: invalid userinfo": "invalid characters before '@'",
}

_MAGIC = (
    ("image/png", lambda b: b.startswith(b"\x89PNG\r\n\x1a\n")),
    ("image/jpeg", lambda b: b.startswith(b"\xff\xd8\xff")),
    ("image/gif", lambda b: b.startswith((b"GIF87a", b"GIF89a"))),
    ("image/svg+xml", lambda b: b"<svg" in b[:4096].lower()),
)

# the OpenShift documentation of the CSV (seed 004): "The level of maturity the software has
# achieved at this version. Options include planning, pre-alpha, alpha, beta, stable, mature,
# inactive, and deprecated." The CSV CRD types it as a plain string.
MATURITY = ("planning", "pre-alpha", "alpha", "beta", "stable", "mature", "inactive", "deprecated")

_NO_SPACE = {ord(c): None for c in string.whitespace}


RULE = define("csv-metadata-format",
              "A CSV field is there but malformed (maintainers, links, icon, displayName, description, provider)", __doc__,
              category="csv", refused_by=[
          refusal("catalog-ci", "check_required_fields fails a displayName whose first 3 characters are not there, a description under "
                  "20 characters, a provider.name under 3, an invalid icon (not base64, mediatype outside gif/jpeg/png/svg+xml), "
                  "maintainers or links that are not lists of {name, email} / {name, url} strings", PIPE_COMMUNITY),
          refusal("catalog-ci", "operator-sdk bundle validate --select-optional name=operatorhub (run by the catalog CI, which fails on its "
                  "errors) fails a maintainer e-mail Go's mail.ParseAddress rejects, a link URL Go's url.ParseRequestURI rejects, a link "
                  "or maintainer without name, more than one icon", HUB_GO),
          refusal("api-server", "the ClusterServiceVersion CRD's schema refuses values of the wrong type (a displayName that is not a "
                  "string, keywords that are not a list of strings, an icon entry without base64data or mediatype)", CSV_CRD),
      ])


@RULE.check
def csv_metadata_format(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    if sp is None:
        return
    sf = csv.file
    lim = data()["limits"]

    dn = sp.get("displayName")
    if not is_blank(dn):
        s = text(dn)
        if s is None:
            yield RULE.at(sf, dn, f"spec.displayName is {dn.type_name()}, not a string.", kind="schema",
                          detail="It is the operator's name in the console; the API server refuses the CSV. Write the name as a string.")
        else:
            n = len(s.strip())
            lo, hi = lim["display_name"]["min"], lim["display_name"]["max"]
            if n > hi:
                yield RULE.at(sf, dn, f"spec.displayName is {n} characters long, more than {hi}.", kind="long-display-name",
                              detail=f"OperatorHub shows it as the operator's name. The catalog CI's pattern '.{{{lo},{hi}}}' is "
                              "matched as a prefix, so only the minimum is enforced, and the community documentation asks only "
                              "for \"a short, readable name\" (info). A shorter name, e.g. 'Example Operator', reads better; "
                              "the rest can go into the description.")
            elif not re.match(r".{%d}" % lo, s):
                yield RULE.at(sf, dn, f"spec.displayName '{shown(dn)}' is shorter than {lo} characters.", kind="required-fields",
                              detail="The catalog CI's required-fields check fails it. Write the operator's readable name.")
            elif n < lo:
                yield RULE.at(sf, dn, f"spec.displayName '{clip(s.strip())}' has fewer than {lo} characters besides spaces.",
                              detail="The catalog CI counts the spaces and accepts it, but the console shows an "
                              "unreadable name. Write the operator's readable name.")
    de = sp.get("description")
    if not is_blank(de):
        s = text(de)
        dmin = lim["description"]["min"]
        if s is None:
            yield RULE.at(sf, de, f"spec.description is {de.type_name()}, not a string (Markdown).", kind="schema",
                          detail="The API server refuses the CSV. Write the description as a string.")
        elif len(s) < dmin:
            yield RULE.at(sf, de, f"spec.description has {len(s)} characters; at least {dmin} are required.", kind="required-fields",
                          detail=f"The catalog CI's required-fields check requires at least {dmin}, and the console's operator page "
                          "shows little else. Describe what the operator manages and how to start.")
        elif len(s.strip()) < dmin:
            yield RULE.at(sf, de, f"spec.description has {len(s.strip())} characters besides surrounding spaces, fewer than {dmin}.",
                          detail="The catalog CI counts the spaces and accepts it, but the console's operator "
                          "page shows almost nothing. Describe what the operator manages and how to start.")
    prov = sp.get("provider")
    if not is_blank(prov):
        if not isinstance(prov, Mapping):
            yield RULE.at(sf, prov, f"spec.provider is {prov.type_name()}, not a mapping such as '{{name: Example Inc.}}'.",
                          kind="schema", detail="The API server refuses the CSV. Write 'provider: {name: <company or project>}'.")
        else:
            pn = prov.get("name")
            if not is_blank(pn):
                s = text(pn)
                pmin = lim["provider_name"]["min"]
                if s is None:
                    yield RULE.at(sf, pn, f"spec.provider.name is {pn.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write the company or project name as a string.")
                elif not re.match(r".{%d}" % pmin, s):
                    yield RULE.at(sf, pn, f"spec.provider.name '{shown(pn)}' is shorter than {pmin} characters.", kind="required-fields",
                                  detail="The catalog CI's required-fields check fails it. Write the company or project name.")
                elif len(s.strip()) < pmin:
                    yield RULE.at(sf, pn, f"spec.provider.name '{clip(s.strip())}' has fewer than {pmin} characters besides spaces.",
                                  detail="The catalog CI counts the spaces and accepts it. Write the company or "
                                  "project name.")
            pu = prov.get("url")
            if not is_blank(pu):
                s = text(pu)
                if s is None:
                    yield RULE.at(sf, pu, f"spec.provider.url is {pu.type_name()}, not a string.", kind="schema",
                                  detail="The ClusterServiceVersion CRD's schema types it as a string, so the API server refuses "
                                  "the CSV. Write the URL as a string such as https://example.com.")
                else:
                    p = url_problem(s)
                    if p:
                        yield RULE.at(sf, pu, f"spec.provider.url '{shown(pu)}' {p}.", kind="provider-url",
                                      detail="Nothing refuses it and the OpenShift console does not show provider.url (its "
                                      "operator pages show only provider.name), hence info; other catalog readers may "
                                      "link it. Write a full URL such as https://example.com.",
                                      fix=fix_value(sf, pu, "https://" + s, "add https://")
                                      if s and p.startswith("needs an http") and "://" not in s else None)

    mt = sp.get("maintainers")
    if not is_blank(mt):
        if not isinstance(mt, Sequence):
            yield RULE.at(sf, mt, f"spec.maintainers is {mt.type_name()}, not a list of '{{name, email}}' entries.", kind="schema",
                          detail="The API server refuses the CSV and the catalog CI's required-fields check fails it. Write "
                          "'maintainers: [{name: <team>, email: <address>}]'.")
        else:
            for item in mt:
                if not isinstance(item, Mapping):
                    yield RULE.at(sf, item, f"a maintainer is {item.type_name()}, not a mapping with name and email.", kind="schema",
                                  detail="The API server refuses the CSV. Write '{name: <person or team>, email: <address>}'.")
                    continue
                nm, em = item.get("name"), item.get("email")
                if is_blank(nm):
                    yield RULE.at(sf, item if nm is None else nm, "this maintainer has no name.", kind="operatorhub",
                                  detail="operator-sdk's validator and the catalog CI require both name and email. Add "
                                  "'name: <person or team>'.")
                elif text(nm) is None:
                    yield RULE.at(sf, nm, f"the maintainer's name is {nm.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write the name as a string.")
                if is_blank(em):
                    yield RULE.at(sf, item if em is None else em, "this maintainer has no email.", kind="operatorhub",
                                  detail="operator-sdk's validator and the catalog CI require both name and email. Add "
                                  "'email: <address>'.")
                else:
                    s = text(em)
                    if s is None:
                        yield RULE.at(sf, em, f"the maintainer email is {em.type_name()}, not a string.", kind="schema",
                                      detail="The API server refuses the CSV. Write an address such as team@example.com.")
                        continue
                    goerr = go_mail_address_error(s)
                    if goerr:
                        yield RULE.at(sf, em, f"the maintainer email '{shown(em)}' is not an e-mail address Go's mail parser accepts.",
                                      kind="operatorhub", detail="operator-sdk's operatorhub validator, run by the catalog CI, fails it, "
                                      "and users cannot reach you. Write an address such as team@example.com.")
                        continue
                    p = email_problem(s)
                    if p:
                        yield RULE.at(sf, em, f"the maintainer email '{shown(em)}' {p}.",
                                      detail=("The name goes in 'name'. " if "display name" in p else "")
                                      + "Go's address parser, which operator-sdk's validator uses, accepts it (a warning), but "
                                      "mail clients and readers may not. Write a plain address such as team@example.com.")

    lk = sp.get("links")
    if not is_blank(lk):
        if not isinstance(lk, Sequence):
            yield RULE.at(sf, lk, f"spec.links is {lk.type_name()}, not a list of '{{name, url}}' entries.", kind="schema",
                          detail="The API server refuses the CSV and the catalog CI's required-fields check fails it. Write "
                          "'links: [{name: Documentation, url: https://...}]'.")
        else:
            for item in lk:
                if not isinstance(item, Mapping):
                    yield RULE.at(sf, item, f"a link is {item.type_name()}, not a mapping with name and url.", kind="schema",
                                  detail="The API server refuses the CSV. Write '{name: Documentation, url: https://...}'.")
                    continue
                nm, u = item.get("name"), item.get("url")
                if is_blank(nm):
                    yield RULE.at(sf, item if nm is None else nm, "this link has no name.", kind="operatorhub",
                                  detail="The console shows the name as the link text, and operator-sdk's validator (run by the "
                                  "catalog CI) requires it. Add 'name: Documentation' (or what it is).")
                elif text(nm) is None:
                    yield RULE.at(sf, nm, f"the link's name is {nm.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write the name as a string.")
                if is_blank(u):
                    yield RULE.at(sf, item if u is None else u, "this link has no url.", kind="operatorhub",
                                  detail="operator-sdk's validator (run by the catalog CI) requires it. Add 'url: https://...'.")
                    continue
                s = text(u)
                if s is None:
                    yield RULE.at(sf, u, f"the link URL is {u.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Write a full URL such as https://example.com/docs.")
                    continue
                goerr = go_request_uri_error(s)
                if goerr:
                    fix = None
                    if goerr == "invalid URI for request" and _HOST.match(s) and "://" not in s and "." in s.split("/", 1)[0]:
                        fix = fix_value(sf, u, "https://" + s, "add https://")
                    yield RULE.at(sf, u, f"the link URL '{shown(u)}' is refused by Go's URL parser: {_GO_URL_WHY.get(goerr, goerr)}.",
                                  kind="operatorhub", detail="operator-sdk's operatorhub validator, run by the catalog CI, fails it. "
                                  "Write a full URL such as https://example.com/docs.", fix=fix)
                    continue
                p = url_problem(s)
                if p:
                    fix = None
                    if " " in s.strip() and s == s.strip():
                        fix = fix_value(sf, u, s.replace(" ", "%20") if u.style is None else dq(s.replace(" ", "%20")),
                                        "encode the spaces")
                    yield RULE.at(sf, u, f"the link URL '{shown(u)}' {p}.",
                                  detail="operator-sdk's validator accepts it (Go's parser takes spaces in a path), so nothing refuses "
                                  "it, but the console's link may not lead where you meant. Write a full http(s) URL"
                                  + (" with %20 for each space." if fix else ", e.g. https://example.com/docs."), fix=fix)

    yield from _icon(sf, sp.get("icon"))

    kw = sp.get("keywords")
    if not is_blank(kw):
        if not isinstance(kw, Sequence):
            fix = None
            if isinstance(kw, Scalar) and isinstance(kw.value, str):
                words = [w.strip() for w in kw.value.split(",") if w.strip()]
                fix = fix_value(sf, kw, "[" + ", ".join(dq(w) for w in words) + "]", "write keywords as a list")
            yield RULE.at(sf, kw, f"spec.keywords is {kw.type_name()}, not a list of words.", kind="schema",
                          detail="The API server refuses the CSV. Write '[word, word]'.", fix=fix)
        else:
            for w in kw:
                if isinstance(w, Scalar) and isinstance(w.value, str):
                    if not w.value.strip():
                        yield RULE.at(sf, w, "this keyword is empty.",
                                      detail="OperatorHub search gains nothing from it (nothing refuses it, hence a warning). Remove "
                                      "it or write a word.")
                else:
                    yield RULE.at(sf, w, f"a keyword is {w.type_name()}, not a string.", kind="schema",
                                  detail="The API server refuses the CSV. Quote it.")

    yield from _selector(sf, sp.get("selector"))
    yield from _maturity(sf, sp.get("maturity"))


def email_problem(s: str) -> Optional[str]:
    if s != s.strip():
        return "has spaces around it"
    if "<" in s or ">" in s:
        return "holds a display name or angle brackets"
    if not _EMAIL.fullmatch(s) or len(s) > 254 or len(s.split("@", 1)[0]) > 64:
        return "is not an e-mail address (local-part@domain.tld)"
    return None


def url_problem(s: str) -> Optional[str]:
    if s != s.strip() or any(c in s for c in " \t\n\"<>"):
        return "holds spaces or characters a URL cannot contain"
    try:
        u = urlsplit(s)
        host = u.hostname
        _ = u.port
    except ValueError:
        return "is not a URL"
    if u.scheme not in ("http", "https"):
        return "needs an http:// or https:// scheme" if not u.scheme or "." in u.scheme else f"uses the scheme '{clip(u.scheme, 20)}:', not http(s)"
    if not host:
        return "has no host name"
    if ":" not in host and not _HOST.fullmatch(host):
        return "has no valid host name"
    return None


def _sniff(b: bytes) -> Optional[str]:
    for mt, test in _MAGIC:
        if test(b):
            return mt
    return None


def _maturity(sf, mt):
    if is_blank(mt):
        return
    if not (isinstance(mt, Scalar) and isinstance(mt.value, str)):
        yield RULE.at(sf, mt, f"spec.maturity is {mt.type_name()}, not a string.", kind="schema",
                      detail="The ClusterServiceVersion CRD types it as a string: the API server refuses the CSV. Write one of "
                      + ", ".join(MATURITY) + ".")
        return
    if mt.value not in MATURITY:
        near = difflib.get_close_matches(mt.value.strip().lower(), MATURITY, n=1, cutoff=0.6)
        yield RULE.at(sf, mt, f"spec.maturity '{shown(mt)}' is not one of the documented maturity levels.",
                      detail="The CSV documentation lists " + ", ".join(MATURITY) + ". Nothing refuses another value (the CRD "
                      "types it as any string), but it tells readers nothing they can compare. "
                      + (f"Write '{near[0]}'." if near else "Write one of them."))


def _selector(sf, sel):
    """spec.selector, a LabelSelector in the CSV CRD's schema: matchLabels a map of strings,
    matchExpressions a list."""
    if is_blank(sel):
        return
    if not isinstance(sel, Mapping):
        yield RULE.at(sf, sel, f"spec.selector is {sel.type_name()}, not a label selector mapping.", kind="schema",
                      detail="The CSV CRD's schema types it as a LabelSelector: the API server refuses the CSV. Write "
                      "'selector: {matchLabels: {key: value}}'.")
        return
    ml = sel.get("matchLabels")
    if ml is not None and not (isinstance(ml, Scalar) and ml.value is None):
        if not isinstance(ml, Mapping):
            yield RULE.at(sf, ml, f"spec.selector.matchLabels is {ml.type_name()}, not a map of labels.", kind="schema",
                          detail="The CSV CRD's schema types matchLabels as an object of strings: the API server refuses the CSV. "
                          "Write 'matchLabels: {key: value}'.")
        else:
            for k, v in ml.items():
                if not (isinstance(v, Scalar) and isinstance(v.value, str)):
                    yield RULE.at(sf, v, f"the value of spec.selector.matchLabels '{shown(k)}' is {v.type_name()}, not a string.",
                                  kind="schema", detail="Label values are strings in the CSV CRD's schema: the API server refuses "
                                  "the CSV. Quote the value.")
    me = sel.get("matchExpressions")
    if me is not None and not (isinstance(me, Scalar) and me.value is None) and not isinstance(me, Sequence):
        yield RULE.at(sf, me, f"spec.selector.matchExpressions is {me.type_name()}, not a list.", kind="schema",
                      detail="The CSV CRD's schema types it as a list of {key, operator, values}: the API server refuses the CSV. "
                      "Write it as a list.")


@lru_cache(maxsize=8)
def _icon_data(s: str) -> tuple:
    """('data-url' | 'invalid' | 'ok', the image type its bytes show) for an icon's
    base64data; remembered for the last icons (an operator's releases repeat theirs)."""
    compact = s.translate(_NO_SPACE)
    if compact.startswith("data:"):
        return "data-url", None
    try:
        raw = base64.b64decode(compact, validate=True)
        if len(compact) < 4:
            raise binascii.Error("too short")
    except (binascii.Error, ValueError):
        return "invalid", None
    return "ok", _sniff(raw)


def _icon(sf, icon):
    if is_blank(icon):
        return
    mediatypes = data()["icon_mediatypes"]
    if not isinstance(icon, Sequence):
        yield RULE.at(sf, icon, f"spec.icon is {icon.type_name()}, not a list with one entry '{{base64data, mediatype}}'.",
                      kind="schema", detail="The API server refuses the CSV. Put '- ' before base64data.")
        return
    if len(icon) > 1:
        yield RULE.at(sf, icon.items[1], f"spec.icon has {len(icon)} entries, not one.", kind="operatorhub",
                      detail="The console shows only the first, and operator-sdk's operatorhub validator (run by the catalog CI) "
                      "fails more than one. Keep one icon.")
    entry = icon.items[0]
    if not isinstance(entry, Mapping):
        yield RULE.at(sf, entry, f"the icon is {entry.type_name()}, not a mapping with base64data and mediatype.", kind="schema",
                      detail="The API server refuses the CSV. Write '- {base64data: <base64 of the image>, mediatype: image/png}'.")
        return
    b64, mt = entry.get("base64data"), entry.get("mediatype")
    mts = text(mt)
    if is_blank(mt):
        yield RULE.at(sf, entry if mt is None else mt, "the icon has no mediatype.", kind="schema",
                      detail="The console cannot show it, the API server refuses an icon without one and the catalog CI fails it. "
                      f"Add 'mediatype: image/png' (or {', '.join(mediatypes)}).")
    elif mts is None or mts not in mediatypes:
        close = difflib.get_close_matches((mts or "").strip().lower(), mediatypes, n=1, cutoff=0.6)
        fix = fix_value(sf, mt, close[0], f"use {close[0]}") if close and isinstance(mt, Scalar) else None
        yield RULE.at(sf, mt, f"the icon mediatype '{shown(mt, 40)}' is not one of {', '.join(mediatypes)}.", kind="operatorhub",
                      detail="The console cannot show the icon, and the catalog CI (and operator-sdk's validator) fail it."
                      + (f" Write '{close[0]}'." if close else ""), fix=fix)
        mts = None
    if is_blank(b64):
        yield RULE.at(sf, entry if b64 is None else b64, "the icon has no base64data.", kind="schema",
                      detail="The console shows a placeholder, the API server refuses an icon without it and the catalog CI "
                      "fails it. Add the base64-encoded image.")
        return
    s = text(b64)
    if s is None:
        yield RULE.at(sf, b64, f"the icon's base64data is {b64.type_name()}, not a string of base64 text.", kind="schema",
                      detail="The API server refuses the CSV. Encode the image file with `base64 -w0 icon.png`.")
        return
    form, sniffed = _icon_data(s)
    if form == "data-url":
        yield RULE.at(sf, b64, "the icon's base64data is a data: URL, not plain base64 text.", kind="required-fields",
                      detail="The catalog CI's icon check decodes it as base64 and fails, and the console adds the "
                      "'data:<mediatype>;base64,' prefix itself. Keep only the base64 text after the comma.")
        return
    if form == "invalid":
        yield RULE.at(sf, b64, "the icon's base64data is not valid base64 (wrong characters, or a length that is not a "
                      "multiple of 4).", kind="required-fields",
                      detail="The console shows a broken image and the catalog CI fails it. Encode the image file with "
                      "`base64 -w0 icon.png`.")
        return
    if mts is not None and sniffed is not None and sniffed != mts:
        kind = sniffed.split("/")[1].upper().replace("+XML", "")
        fix = fix_value(sf, mt, sniffed, f"use {sniffed}")
        if "svg" in sniffed or "svg" in mts:
            why, raster = "Browsers do not guess SVG, so the console most likely shows a broken image", False
        else:
            why, raster = "Browsers sniff raster images whatever the declared type, so the console shows it; only the label is wrong", True
        yield RULE.at(sf, mt, f"the icon data is {kind} but the mediatype says {mts}.", kind="raster-mediatype" if raster else "",
                      detail=f"{why}. Nothing refuses it (the catalog CI checks only that the mediatype is one of the four), "
                      f"hence {'info' if raster else 'a warning'}. Write 'mediatype: {sniffed}'.", fix=fix)
