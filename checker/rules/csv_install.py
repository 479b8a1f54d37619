"""ClusterServiceVersion install content: owned and required CRDs and API services, resource
requests of the install strategy's containers, channel names, PodDisruptionBudget and
PriorityClass limits. Webhooks are in ``webhooks.py``, RBAC in ``rbac.py``.

The small readers at the top (``csv_spec``, ``deployments``, ``strings``) are shared by those
modules; every one of them tolerates any shape of input (a string where a mapping belongs, a
number where a string belongs) and returns nothing for it.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import accumulate
from typing import Optional

from .. import yamlload
from ..model import Bundle
from ..nodes import Mapping, Scalar, Sequence, Skipped
from ..versions import clip
from ..yamlload import resolve_plain
from . import check, define, finding, refusal
from .lib.csv import csv_spec, deployment_names, deployments
from .lib.fixes import fix_value
from .lib.text import lacking, shape, show, stripped

CAT = "csv"
_CSV_CRD = "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_clusterserviceversions.yaml"
_OLM_REQ = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/olm/requirements.go"


# ---------------------------------------------------------------------------------------
# Shared readers





















# ---------------------------------------------------------------------------------------
# owned-crd-fields / required-crd-fields

_CRD_EXPLANATION = """
    What: each entry of `spec.customresourcedefinitions.{which}` needs `name` (the CRD's
    `metadata.name`, `<plural>.<group>`), `version` (a version the CRD serves) and `kind`;
    the documentation also requires `displayName` and `description` for every entry. A CSV
    may list one CRD once per version: each entry is checked, and its finding names the version.

    Why: OLM matches {why}. Without name, version or kind (or with a name that is not
    `<plural>.<group>`) it cannot match the CRD and the install fails (error: the API server
    refuses an entry without name, version or kind, as the CSV CRD's schema requires them,
    and OLM's requirement check finds no CRD of that name). displayName and description are
    what the console shows for the API; nothing refuses the CSV without them (warning).{extra}

    Fix: fill in the missing field.

    Bad:
        customresourcedefinitions:
          {which}:
            - name: widgets.example.com
              kind: Widget
    Good:
        customresourcedefinitions:
          {which}:
            - name: widgets.example.com
              version: v1
              kind: Widget
              displayName: Widget
              description: A widget managed by the operator.
    """

_DESCRIPTORS_NOTE = (
    "\n    Descriptors (`specDescriptors`, `statusDescriptors`, `actionDescriptors`): a list that is not a\n"
    "    list, an item that is not a mapping, or a path that is not a string (`path: 5`) is an error:\n"
    "    operator-framework/api's Go types cannot decode the CSV (operator-sdk bundle validate,\n"
    "    preflight and OLM's install plan, which json.Unmarshals the CSV before creating it). A\n"
    "    missing, null or empty path is a warning, though the CSV CRD's schema requires path (and\n"
    "    seed 004 says every descriptor has one): SpecDescriptor.Path is `json:\"path\"` without\n"
    "    omitempty, so OLM's typed client sends \"\" and the API server accepts it; the console then\n"
    "    takes the whole spec or status as the descriptor's field (descriptors/utils.tsx,\n"
    "    `[descriptorType, ..._.toPath(descriptor.path)]`).\n")

_RESOURCES_NOTE = ("\n    A `resources` item that is not a mapping, or whose kind, name or version is not a string, is\n"
                   "    an error (operator-framework/api cannot decode the CSV). A missing kind or version is only\n"
                   "    info, though the CSV CRD's schema (and seed 004) requires them: OLM creates the CSV from the\n"
                   "    Go type APIResourceReference, which writes a missing field as \"\", so the API server\n"
                   "    accepts it (certified-operators holds hundreds of such entries). A missing name is not\n"
                   "    reported: the type documents it as empty for a resource that is not a custom resource.\n" + _DESCRIPTORS_NOTE)

define("owned-crd-fields", "error", "An owned CRD entry lacks name, version or kind (error), or displayName/description (warning)",
       category=CAT, mixed=True, explanation=_CRD_EXPLANATION.format(
           which="owned", why="owned entries to the CRDs shipped in the bundle by name and serves the API from the listed version",
           extra="\n    CRDs listed in the `operators.operatorframework.io/internal-objects` annotation get no\n"
                 "    displayName/description warning: the console hides them." + _RESOURCES_NOTE),
       refused_by=[
           refusal("api-server", "the CSV CRD's schema requires name, version and kind (strings) in every owned entry", _CSV_CRD),
           refusal("olm-install", "OLM's requirement check looks the owned CRD up by name and version; with none matching the CSV "
                   "stays Pending (RequirementsNotMet)", _OLM_REQ),
       ])

define("required-crd-fields", "error", "A required CRD entry lacks name, version or kind (error), or displayName/description (warning)",
       category=CAT, mixed=True, explanation=_CRD_EXPLANATION.format(
           which="required", why="required entries to CRDs already on the cluster by name, version and kind before it installs the operator (the CSV stays Pending until they exist)",
           extra=_RESOURCES_NOTE),
       refused_by=[
           refusal("api-server", "the CSV CRD's schema requires name, version and kind (strings) in every required entry", _CSV_CRD),
           refusal("olm-install", "OLM's requirement check looks the required CRD up by name and version; with none matching the CSV "
                   "stays Pending (RequirementsNotMet)", _OLM_REQ),
       ])

_CRD_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+")


INTERNAL_OBJECTS = "operators.operatorframework.io/internal-objects"


def internal_objects(csv) -> set:
    """The CRD names the internal-objects annotation lists (a JSON array of strings); empty
    when it is absent or malformed (the internal-objects rule reports that)."""
    ann = csv.annotations()
    node = ann.get(INTERNAL_OBJECTS) if ann is not None else None
    if not (isinstance(node, Scalar) and isinstance(node.value, str)):
        return set()
    try:
        v = json.loads(node.value)
    except ValueError:
        return set()
    return {x for x in v if isinstance(x, str)} if isinstance(v, list) else set()


def _crd_entries(bundle: Bundle, rule_id: str, which: str):
    cs = csv_spec(bundle)
    if cs is None:
        return
    csv, spec = cs
    sf = csv.file
    crds = spec.get("customresourcedefinitions")
    if crds is None or (isinstance(crds, Scalar) and crds.value is None):
        return
    if not isinstance(crds, Mapping):
        if which == "owned":  # report the shape once, under the owned rule
            yield finding(rule_id, sf, crds, f"spec.customresourcedefinitions is {crds.type_name()}, not a mapping with 'owned' and 'required' lists",
                          detail="OLM cannot read the CSV's APIs. Write customresourcedefinitions: {owned: [...]}.")
        return
    lst = crds.get(which)
    if lst is None or (isinstance(lst, Scalar) and lst.value is None):
        return
    internal = internal_objects(csv)
    if not isinstance(lst, Sequence):
        yield finding(rule_id, sf, lst, f"spec.customresourcedefinitions.{which} is {lst.type_name()}, not a list of CRD entries",
                      detail="The API server rejects the CSV. Write a list of entries with name, version, kind, displayName and description.")
        return
    for entry in lst:
        if not isinstance(entry, Mapping):
            yield finding(rule_id, sf, entry, f"this {which} CRD entry is {entry.type_name()}, not a mapping with name, version and kind",
                          detail="The API server rejects the CSV. Write the entry as a mapping.")
            continue
        label = clip(stripped(entry.get("name")) or stripped(entry.get("kind")) or "this entry")
        # a CSV often owns one CRD once per version: the version tells its entries apart
        ver = stripped(entry.get("version"))
        at = f" (version {clip(ver, 30)})" if ver else ""
        for key, what in (("name", "the CRD's metadata.name, '<plural>.<group>'"), ("version", "the API version, e.g. v1"), ("kind", "the kind, e.g. Widget")):
            v = entry.get(key)
            if v is None:
                hint = ""
                if key == "name" and which == "owned":
                    guess = _crd_name_for_kind(bundle, stripped(entry.get("kind")))
                    if guess:
                        hint = f" (the bundle's CRD for this kind is '{guess}')"
                yield finding(rule_id, sf, entry, f"the {which} CRD entry '{label}'{at} has no {key}",
                              detail=f"The {key} is {what}{hint}; OLM cannot match the CRD without it and the install fails. Add {key}.")
            elif stripped(v) is None:
                yield finding(rule_id, sf, v, f"the {key} of the {which} CRD entry '{label}'{at} is {show(v)}, not a non-empty string", detail=f"The {key} is {what}; OLM cannot match the CRD. Write the {key} as a string.")
            elif key == "name" and not _CRD_NAME.fullmatch(stripped(v)):
                yield finding(rule_id, sf, v, f"the {which} CRD name '{clip(stripped(v))}'{at} is not '<plural>.<group>'",
                              detail="A CRD's metadata.name always has that form (lowercase, with the API group after the first dot, "
                              "e.g. widgets.example.com), so OLM can never match this entry. Write the CRD's metadata.name.")
        yield from _entry_lists(rule_id, sf, entry, f"the {which} CRD entry '{label}'{at}")
        if which == "owned" and stripped(entry.get("name")) in internal:
            continue  # the console hides internal objects: their UI text is never shown
        yield from _ui_text(rule_id, sf, entry, f"the {which} CRD entry '{label}'{at}")


# The CSV CRD's schema (operator-framework/api crds/operators.coreos.com_clusterserviceversions.yaml):
# a resources item (APIResourceReference) requires kind, name and version: the API server
# refuses a CSV that lacks one. A spec, status or action descriptor requires path: see
# _descriptors (the loader does not build descriptors into nodes, load.SKIP_KEYS).
_LISTS = (("resources", ("kind", "name", "version"), "a resource entry"),)


def _entry_lists(rule_id, sf, entry: Mapping, what: str):
    """The shapes the API server refuses in an owned/required API entry's resources and descriptors."""
    yield from _descriptors(rule_id, sf, entry, what)
    for key, required, one in _LISTS:
        lst = entry.get(key)
        if lst is None or (isinstance(lst, Scalar) and lst.value is None):
            continue
        if not isinstance(lst, Sequence):
            yield finding(rule_id, sf, lst, f"{key} of {what} is {lst.type_name()}, not a list", detail=(
                f"The ClusterServiceVersion CRD's schema types {key} as a list: the API server refuses the CSV. Write a list."))
            continue
        for item in lst:
            if not isinstance(item, Mapping):
                yield finding(rule_id, sf, item, f"{one} of {what} is {item.type_name()}, not a mapping", detail=(
                    f"The ClusterServiceVersion CRD's schema requires {', '.join(required)} in each {key} item: the API server "
                    "refuses the CSV. Write the item as a mapping."))
                continue
            for field in required:
                v = item.get(field)
                if v is None:
                    if field == "name":  # "Empty string if the referenced resource type is not a custom resource"
                        continue
                    # the CRD's schema requires it, but OLM decodes the bundle's CSV into operator-framework/api's
                    # types (APIResourceReference: `json:"version"`, no omitempty) and creates it from them, so the
                    # API server gets "" and accepts it: info, a deliberate difference from the schema (seed 004)
                    yield finding(rule_id, sf, item, f"{one} of {what} has no {field}", severity="info", detail=(
                        f"The ClusterServiceVersion CRD's schema requires {', '.join(required)} in each {key} item. OLM creates "
                        f"the CSV from operator-framework/api's Go types, which write a missing {field} as \"\", so the API "
                        f"server accepts it; only a CSV applied as written (kubectl) is refused, and the console shows the "
                        f"resource without its {field}. Add {field}" + (" (e.g. v1)." if field == "version" else " (e.g. Deployment).")))
                elif not (isinstance(v, Scalar) and isinstance(v.value, str)):
                    yield finding(rule_id, sf, v, f"the {field} of {one} of {what} is {v.type_name()}", detail=(
                        f"It must be a string: the ClusterServiceVersion CRD's schema and operator-framework/api's Go type take {field} as one, so "
                        "the bundle cannot be decoded and the API server refuses the CSV. Quote it."))


# ---- descriptors (seed 004: every spec, status and action descriptor has a path)
#
# The loader parses descriptors but builds no nodes for them (load.SKIP_KEYS: a quarter of a
# CSV's lines, which no other rule reads), so their text is read here: a cheap look at the text
# of each list (_clean_block, _clean_json) answers the common case, every item a mapping with a
# string path; only a list that fails it is parsed (yamlload.parse) for the findings' positions.

_DESCRIPTORS = ("specDescriptors", "statusDescriptors", "actionDescriptors")
_DESCRIPTOR_SRC = "https://github.com/operator-framework/api/blob/master/pkg/operators/v1alpha1/clusterserviceversion_types.go"


def _descriptors(rule_id, sf, entry: Mapping, what: str):
    for key in _DESCRIPTORS:
        lst = entry.get(key)
        if lst is None or (isinstance(lst, Scalar) and lst.value is None):
            continue
        base = 0  # the line before the list's first line, for nodes parsed from its own text
        if shape(lst) != "sequence":  # (a skipped value knows its shape, not its type)
            yield finding(rule_id, sf, lst, f"{key} of {what} is {'a mapping' if shape(lst) == 'mapping' else 'a single value'}, not a list", detail=(
                f"The ClusterServiceVersion CRD's schema types {key} as a list of descriptors, and operator-framework/api "
                "cannot decode the CSV (operator-sdk bundle validate, preflight and OLM's install all decode it). Write a list."))
            continue
        if isinstance(lst, Skipped):
            got = _descriptor_items(sf, lst)
            if got is None:
                continue  # nothing wrong in it, or a text this reader does not follow
            base, items = lst.line - 1, got
        else:
            items = lst.items
        one = key[:-1]
        pathless = []  # (n, item, path node) of the items without a path
        for n, item in enumerate(items, 1):
            if not isinstance(item, Mapping):
                yield finding(rule_id, sf, item, f"{one} {n} of {what} is {item.type_name()}, not a mapping with a path",
                              line=item.line + base, detail=(
                                  f"Each item of {key} is a descriptor (path, displayName, description, x-descriptors): "
                                  "operator-framework/api cannot decode the CSV (operator-sdk bundle validate, preflight and "
                                  "OLM's install all decode it), and the API server's schema refuses it. Write the item as a mapping."))
                continue
            v = item.get("path")
            if v is None or (isinstance(v, Scalar) and (v.value is None or (isinstance(v.value, str) and not v.value.strip()))):
                pathless.append((n, item, v))  # null and "" are what Go's decoder makes of a missing path too
            elif not (isinstance(v, Scalar) and isinstance(v.value, str)):
                yield finding(rule_id, sf, v, f"the path of {one} {n} of {what} is {v.type_name()}, not a string",
                              line=v.line + base, detail=(
                                  "operator-framework/api's Go type takes path as a string, so the CSV cannot be decoded "
                                  "(operator-sdk bundle validate, preflight and OLM's install all decode it), and the API "
                                  "server's schema refuses it. Quote the path."))
        if pathless:
            n, item, v = pathless[0]
            name = stripped(item.get("displayName"))
            label = f" ('{clip(name, 40)}')" if name else ""
            if len(pathless) == 1:
                message = f"{one} {n}{label} of {what} has {'no' if v is None else 'an empty'} path"
            else:  # one finding per list: a generator's slip repeats it (633 in one community CSV)
                message = f"{len(pathless)} {key} of {what} have no path (the first: {n}{label})"
            yield finding(rule_id, sf, item, message, kind="descriptor-path", line=item.line + base, detail=(
                "The ClusterServiceVersion CRD's schema and the CSV documentation require a path, the field of "
                f"the custom resource's {'status' if key.startswith('status') else 'spec'} a descriptor describes (e.g. "
                "size, or resources.limits). Nothing refuses it: OLM decodes the CSV into operator-framework/api's "
                "Go types, which write a missing path as \"\", so the API server accepts it; the console then "
                "applies the descriptor to the whole spec or status instead of a field. Add path" + (
                    f" (items {', '.join(str(p[0]) for p in pathless[:10])}{', ...' if len(pathless) > 10 else ''})." if len(pathless) > 1 else ".")))


def _descriptor_items(sf, lst: Skipped) -> Optional[list]:
    """The items (nodes, lines counted from the list's first line) of a descriptor list the
    loader skipped, or None when each item is a mapping with a string path (the text shows it)
    or the text cannot be cut out of the file."""
    start = _offset(sf, lst.line)
    if start is None or lst.col < 1:
        return None
    ind = lst.col - 1
    text = sf.text
    first = text[start + ind:start + ind + 1]
    if first == "-":
        m = _list_end(ind).search(text, start)
        block = text[start:m.start() if m else len(text)]
        if text[start:start + ind].strip(" ") or _clean_block(block, ind):
            return None
        src = " " * ind + block[ind:]
    elif first in ("[", "{"):
        try:
            value, stop = _JSON.raw_decode(text, start + ind)
        except (ValueError, RecursionError):  # a YAML flow list
            stop = _flow_end(text, start + ind)
            if stop is None:
                return None
        else:
            if isinstance(value, list) and all(isinstance(x, dict) and isinstance(x.get("path"), str) and x["path"].strip() for x in value):
                return None
        src = " " * ind + text[start + ind:stop]
    else:
        return None
    docs, _problems = _parse_list(src)  # (the file's parse reported them)
    if len(docs) != 1 or not isinstance(docs[0], Sequence):
        return None
    return docs[0].items


def _flow_end(text: str, i: int) -> Optional[int]:
    """The offset after the YAML flow collection that opens at ``text[i]``, or None."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "'":
            i += 1
            while i < n and (text[i] != "'" or text[i + 1:i + 2] == "'"):
                i += 2 if text[i] == "'" else 1
        elif c == "#" and text[i - 1] in " \t\n":
            i = text.find("\n", i)
            if i < 0:
                return None
        i += 1
    return None


@lru_cache(maxsize=8)
def _parse_list(src: str) -> tuple:
    """yamlload.parse of a descriptor list's text (a CSV's lists repeat from bundle to bundle)."""
    try:
        return yamlload.parse(src)
    except RecursionError:
        return [], []


def _offset(sf, line: int) -> Optional[int]:
    """The offset of line ``line`` (1-based) in the file's text, None when it has no such line."""
    if sf.text is None or line < 1:
        return None
    starts = getattr(sf, "_line_offsets", None)
    if starts is None:
        starts = [0, *accumulate(map(len, sf._lines()))]  # + one newline per line before
        object.__setattr__(sf, "_line_offsets", starts)
    return starts[line - 1] + line - 1 if line < len(starts) else None


@lru_cache(maxsize=32)
def _list_end(ind: int):
    """The end of a block list whose items start at column ``ind`` + 1: a line (not blank, not a
    comment) indented less, or as much without a '-'."""
    return re.compile(r"\n(?! {%d})(?= *[^ \r\n#])|\n {%d}(?=[^ \r\n#-])" % (ind, ind))


@lru_cache(maxsize=64)
def _item_re(ind: int, gap: int):
    # an item's first line "- key..." (the keys of an item start gap spaces after its "-"), a
    # first line laid out otherwise, or a path key at the item's keys' indentation
    return re.compile(r"^ {%d}-(?: {%d}(?=[^ \r\n])(path:)?([^\n]*)|([^\n]*))|^ {%d}path:([^\n]*)"
                      % (ind, gap, ind + 1 + gap), re.M)


_JSON = json.JSONDecoder()
_KEY_LINE = re.compile(r"[^\s#'\"\[\]{}|>&*!%@`,?-][^:#\n]*:(?:[ \t]|\r?$)")


@lru_cache(maxsize=256)  # an operator's bundles repeat their CSVs' descriptor lists
def _clean_block(block: str, ind: int) -> bool:
    """Whether a block list's text shows every item a mapping with a plain or quoted path that
    is a non-empty string, at the indentation of the item's keys (as every YAML writer lays
    them out). Regular expressions find the items' first lines and the path keys; nothing
    else of the text is looked at."""
    first = re.match(r" {%d}-( +)(?=[^ \r\n])" % ind, block)
    if first is None:
        return False
    items, has_path = 0, True
    for m in _item_re(ind, len(first.group(1))).finditer(block):
        if m.group(3) is not None:
            return False  # "-" alone, or keys at another indentation
        if m.group(4) is not None:  # a path key below an item's first line
            if has_path or not _string_value(m.group(4)):
                return False  # a second path in one item, or not a string
            has_path = True
            continue
        if not has_path:
            return False  # the item before has no path
        items += 1
        if m.group(1):  # "- path: ..."
            if not _string_value(m.group(2)):
                return False
        elif not _KEY_LINE.match(m.group(2)):
            return False  # not a mapping, or a key this look does not read
        else:
            has_path = False
    return items > 0 and has_path


def _string_value(rest: str) -> bool:
    """Whether the text after "path:" is a non-empty string scalar (plain or quoted)."""
    v = rest.split(" #")[0].strip()
    if not v or rest[:1] not in (" ", "\t"):
        return False
    if v[0] in "\"'":
        return len(v) > 2 and v[-1] == v[0] and v[1:-1].strip() != ""
    if v[0] in "[{|>&*!":
        return False
    value = resolve_plain(v)[1]
    return isinstance(value, str) and value.strip() != ""


def _ui_text(rule_id, sf, entry: Mapping, what: str):
    """One warning per entry for a missing or empty displayName and/or description."""
    lacking = []
    node = None
    for key in ("displayName", "description"):
        v = entry.get(key)
        if v is None:
            lacking.append(f"no {key}")
        elif stripped(v) is None:
            lacking.append(f"an empty {key}")
            node = node or v
    if lacking:
        keys = " and ".join(k.split()[-1] for k in lacking)
        yield finding(rule_id, sf, node or entry, f"{what} has {' and '.join(lacking)}", severity="warning",
                      detail=f"The console shows them for this API and the CSV documentation requires both. Add {keys}.")


def _crd_name_for_kind(bundle: Bundle, kind: Optional[str]) -> Optional[str]:
    """metadata.name of the bundle's CRD for ``kind`` (for a hint when a name is missing)."""
    for m in bundle.crds:
        sp = m.spec()
        names = sp.get("names") if sp is not None else None
        if kind and isinstance(names, Mapping) and stripped(names.get("kind")) == kind and m.name:
            return m.name
    return None


@check("bundle")
def owned_crd_fields(bundle: Bundle, ctx):
    yield from _crd_entries(bundle, "owned-crd-fields", "owned")


@check("bundle")
def required_crd_fields(bundle: Bundle, ctx):
    yield from _crd_entries(bundle, "required-crd-fields", "required")


# ---------------------------------------------------------------------------------------
# apiservice-definitions

@check("bundle")
def apiservice_definitions(bundle: Bundle, ctx):
    cs = csv_spec(bundle)
    if cs is None:
        return
    csv, spec = cs
    sf = csv.file
    defs = spec.get("apiservicedefinitions")
    if defs is None or (isinstance(defs, Scalar) and defs.value is None):
        return
    if not isinstance(defs, Mapping):
        yield finding("apiservice-definitions", sf, defs, f"spec.apiservicedefinitions is {defs.type_name()}, not a mapping with 'owned' and 'required' lists", detail="The API server rejects the CSV.")
        return
    deps = deployment_names(spec)
    for which in ("owned", "required"):
        lst = defs.get(which)
        if lst is None or (isinstance(lst, Scalar) and lst.value is None):
            continue
        if not isinstance(lst, Sequence):
            yield finding("apiservice-definitions", sf, lst, f"spec.apiservicedefinitions.{which} is {lst.type_name()}, not a list of API service entries", detail="The API server rejects the CSV.")
            continue
        for entry in lst:
            if not isinstance(entry, Mapping):
                yield finding("apiservice-definitions", sf, entry, f"this {which} API service entry is {entry.type_name()}, not a mapping with group, version, kind and name", detail="The API server rejects the CSV.")
                continue
            label = clip(".".join(x for x in (stripped(entry.get("name")), stripped(entry.get("group"))) if x) or stripped(entry.get("kind")) or "this entry")
            for key, what in (("group", "the API group, e.g. metrics.example.com"), ("version", "the version, e.g. v1"),
                              ("kind", "the kind, e.g. Widget"), ("name", "the plural resource name, e.g. widgets")):
                v = entry.get(key)
                if v is None or stripped(v) is None:
                    node = entry if v is None else v
                    why = ("OLM creates the APIService <version>.<group> from these fields" if which == "owned"
                           else "OLM waits for the APIService <version>.<group> to be available before installing")
                    yield finding("apiservice-definitions", sf, node, f"the {which} API service entry '{label}' has {lacking(v, key)}",
                                  detail=f"The {key} is {what}; {why}, so the install cannot succeed. Write {key} as a non-empty string.")
            if which == "owned":
                dn = entry.get("deploymentName")
                name = stripped(dn)
                if name is None:
                    yield finding("apiservice-definitions", sf, entry if dn is None else dn,
                                  f"the owned API service entry '{label}' has {lacking(dn, 'deploymentName')}",
                                  detail="OLM serves the API from that deployment (it mounts the serving certificate into it and points the "
                                  "APIService's Service at it), so the APIService never becomes available. Set deploymentName to one of "
                                  f"the CSV's deployments ({', '.join(deps) or 'none defined'}).")
                elif name not in deps:
                    yield finding("apiservice-definitions", sf, dn,
                                  f"deploymentName '{clip(name)}' of the owned API service '{label}' is not a deployment of this CSV",
                                  detail=f"The CSV's install strategy has {', '.join(deps) or 'no deployment'}; OLM cannot find the deployment "
                                  "to serve the API and the install fails. Use one of the CSV's deployment names.")
            yield from _entry_lists("apiservice-definitions", sf, entry, f"the {which} API service entry '{label}'")
            yield from _ui_text("apiservice-definitions", sf, entry, f"the {which} API service entry '{label}'")


define("apiservice-definitions", "error", "An owned or required API service entry is incomplete, or names a deployment the CSV does not have",
       category=CAT, mixed=True, refused_by=[
           refusal("api-server", "the CSV CRD's schema requires group, version, kind and name in every API service entry", _CSV_CRD),
           refusal("olm-install", "OLM creates the owned APIService's service and certificate for deploymentName and checks required "
                   "APIServices before installing; a missing field or deployment leaves the CSV failing or Pending",
                   "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/install/apiservice.go"),
       ], explanation="""
    What: each entry of `spec.apiservicedefinitions.owned` and `.required` needs `group`,
    `version`, `kind` and `name` (the plural resource); owned entries also need
    `deploymentName`, one of the deployments of the CSV's install strategy. `displayName`
    and `description` are required by the CSV documentation.

    Why: for an owned API service OLM creates the APIService `<version>.<group>`, generates
    its serving certificate and mounts it into the named deployment; for a required one it
    waits until that APIService is available. A missing field or a deployment that is not in
    the CSV means the APIService never becomes available and the CSV never succeeds (error).
    displayName and description are console text (warning). Refused by: the API server
    (the CSV CRD's schema requires group, version, kind and name, as strings) and OLM's
    install (it creates the APIService and its serving certificate for the named
    deployment, and waits for required APIServices).
    Descriptors of an entry are judged as for owned CRDs: a path that is not a string, or an
    item that is not a mapping, is an error (operator-framework/api cannot decode the CSV); a
    missing path a warning (OLM's typed client writes it as "", the API server accepts it).

    Fix: add the missing field; set deploymentName to a deployment listed under
    `spec.install.spec.deployments`.

    Bad:
        apiservicedefinitions:
          owned:
            - group: metrics.example.com
              version: v1
              kind: Metric
              name: metrics
              deploymentName: metrics-server   # no such deployment
    Good:
        apiservicedefinitions:
          owned:
            - group: metrics.example.com
              version: v1
              kind: Metric
              name: metrics
              displayName: Metric
              description: Metrics served by the operator.
              deploymentName: example-operator
    """)


# ---------------------------------------------------------------------------------------
# resource-requests

@check("bundle")
def resource_requests(bundle: Bundle, ctx):
    cs = csv_spec(bundle)
    if cs is None:
        return
    csv, spec = cs
    sf = csv.file
    for dname, dep in deployments(spec):
        ds = dep.get("spec")
        tmpl = ds.get("template") if isinstance(ds, Mapping) else None
        ps = tmpl.get("spec") if isinstance(tmpl, Mapping) else None
        if not isinstance(ps, Mapping):
            continue
        containers = ps.get("containers")
        if not isinstance(containers, Sequence):
            continue
        # a pod none of whose containers sets a CPU or memory request or limit is BestEffort
        # (the kubelet evicts such pods first); otherwise the unset resource counts as used
        # beyond the request, which ranks the pod early for eviction
        best_effort = not any(_sets_resources(c) for key in ("containers", "initContainers")
                              for c in (ps.get(key) if isinstance(ps.get(key), Sequence) else ()))
        evicted = ("the pod is BestEffort, the first the kubelet evicts under node pressure" if best_effort else
                   "what it uses counts as beyond its request, which ranks the pod early for eviction under node pressure")
        for c in containers:
            if not isinstance(c, Mapping):
                continue
            cname = clip(stripped(c.get("name")) or "(unnamed)")
            res = c.get("resources")
            missing = [word for r, word in (("cpu", "CPU"), ("memory", "memory")) if not _sets(c, r)]
            if not missing:
                continue
            node = c.key_node("resources") if isinstance(res, Mapping) and c.key_node("resources") is not None else c.key_node("name") or c
            what = " and ".join(missing)
            yield finding("resource-requests", sf, node,
                          f"container '{cname}' of deployment '{clip(dname or '(unnamed)')}' requests no {what}",
                          detail=f"It sets no {what} limit either, which Kubernetes would copy into the request. Without requests the "
                          f"scheduler cannot place the pod sensibly, {evicted}, and a namespace whose ResourceQuota covers "
                          f"{what.lower()} refuses the pod unless a LimitRange gives defaults. Add resources.requests."
                          f"{' and resources.requests.'.join(m.lower() for m in missing)} with what the operator needs (e.g. cpu: 10m, memory: 64Mi).")


def _sets(c, r: str) -> bool:
    """Whether a container sets a request or a limit (copied into the request) of resource ``r``."""
    res = c.get("resources") if isinstance(c, Mapping) else None
    return isinstance(res, Mapping) and any(isinstance(res.get(k), Mapping) and _quantity(res.get(k).get(r))
                                            for k in ("requests", "limits"))


def _sets_resources(c) -> bool:
    """Whether a container sets a CPU or memory request or limit (its pod is then not BestEffort)."""
    return _sets(c, "cpu") or _sets(c, "memory")


def _quantity(node) -> bool:
    """A resource quantity is set (a non-empty string or a number)."""
    if not isinstance(node, Scalar) or isinstance(node.value, bool) or node.value is None:
        return False
    if isinstance(node.value, (int, float)):
        return True
    return isinstance(node.value, str) and node.value.strip() != ""


define("resource-requests", "warning", "A container of the CSV's deployments has no CPU or memory request", category=CAT, explanation="""
    What: every container of the deployments in the CSV's install strategy
    (`spec.install.spec.deployments[].spec.template.spec.containers[]`) should request CPU
    and memory. A limit without a request counts as a request (Kubernetes copies the limit
    into it), so only containers with neither are reported; operator-sdk's good-practices
    validator, by contrast, only notices a container whose `requests` are missing altogether.

    Why: a pod without requests is scheduled as if it needed nothing; when the node runs
    short the kubelet evicts it early (first of all when no container of the pod sets any
    request or limit: a BestEffort pod; otherwise its use counts as beyond its request); and
    it cannot be created at all in namespaces whose ResourceQuota covers CPU or memory unless
    a LimitRange gives defaults (the Operator SDK best practices, "Managing resources";
    Kubernetes, "Node-pressure eviction" and "Resource quotas").

    Fix: add `resources.requests` with what the operator needs.

    Bad:
        containers:
          - name: manager
            image: quay.io/example/operator@sha256:...
    Good:
        containers:
          - name: manager
            image: quay.io/example/operator@sha256:...
            resources:
              requests:
                cpu: 10m
                memory: 64Mi
    """)


# ---------------------------------------------------------------------------------------
# channel-naming

CHANNELS_KEY = "operators.operatorframework.io.bundle.channels.v1"
_CHANNEL_OK = re.compile(r"(candidate|fast|stable)([^a-z].*|v[0-9].*)?")
SDK_SCAFFOLD_CHANNEL = "alpha"


def _channels(bundle: Bundle) -> list:
    cached = bundle.extra.get("channels")
    if cached is None:
        ann = bundle.annotations
        node = ann.get(CHANNELS_KEY) if ann is not None else None
        cached = []
        if isinstance(node, Scalar) and isinstance(node.value, str):
            cached = [c.strip() for c in node.value.split(",") if c.strip()]
        bundle.extra["channels"] = cached
    return cached


def _established(bundle: Bundle, ctx, channel: str) -> bool:
    """Another bundle of the same operator is in this channel (the operator's light facts,
    ``ctx.operator.siblings``, prepared before the bundle's rules run)."""
    op = getattr(ctx, "operator", None)
    if op is None or bundle.operator is None:
        return False
    return any(s.rel != bundle.rel and channel in s.channels for s in op.siblings)


@check("bundle")
def channel_naming(bundle: Bundle, ctx):
    af = bundle.annotations_file
    node = bundle.annotations.get(CHANNELS_KEY) if bundle.annotations is not None else None
    if af is None or not (isinstance(node, Scalar) and isinstance(node.value, str)):
        return
    seen = set()
    for ch in _channels(bundle):
        if ch in seen or _CHANNEL_OK.fullmatch(ch):
            continue
        seen.add(ch)
        shown_ch = clip(ch)
        if ch == SDK_SCAFFOLD_CHANNEL:
            yield finding("channel-naming", af, node,
                          f"the channel '{shown_ch}' is operator-sdk's scaffolded default, not candidate, fast or stable", severity="info",
                          detail="The recommended names are candidate, fast and stable (optionally with a version, e.g. stable-v1). "
                          "Keep it for early-access releases; when the operator is ready for users, publish to a stable channel too.")
        elif _established(bundle, ctx, ch):
            yield finding("channel-naming", af, node,
                          f"the channel '{shown_ch}' is not a recommended name, but other bundles of this operator already publish to it",
                          severity="info",
                          detail="The recommended names are candidate, fast or stable, optionally with a version (stable-v1); renaming "
                          "this channel would strand existing subscriptions. Nothing to change here; name new channels candidate, fast or stable.")
        else:
            yield finding("channel-naming", af, node,
                          f"the channel '{shown_ch}' does not follow the recommended naming (candidate, fast or stable)", severity="warning",
                          detail="Recommended: candidate, fast or stable, optionally with a version (stable-v1, fast-v1.2), names that "
                          "tell users how tested a release is; the catalog CI's operator-sdk good-practices check warns on others. "
                          "Rename it before users subscribe to it (afterwards a rename strands their subscriptions).")


define("channel-naming", "warning", "A channel name outside the candidate/fast/stable conventions (info for SDK's default 'alpha')",
       category=CAT, mixed=True, explanation="""
    What: OLM's best practices name channels `candidate`, `fast` and `stable`, optionally
    followed by a version (`stable-v1`, `fast-v1.2`). A new channel with another name is a
    warning. Information only: `alpha`, the channel operator-sdk scaffolds (early operators
    legitimately ship in it; operator-sdk's good-practices validator warning on it is noise
    authors learn to ignore), and, in a catalog repository, a channel that other bundles of
    the operator already publish to (renaming it would strand existing subscriptions, so the
    warning could only be ignored).

    Why: the names tell users how tested a release is (candidate: may be untested; fast:
    tested, newest; stable: the supported, slower-moving stream). operator-sdk's
    good-practices validator (`validateHubChannels` in operator-framework/api, run by the
    community catalog CI in `suite=operatorframework`) warns on a channel that does not start
    with one of them. The console does not interpret channel names, and nothing refuses
    other names.

    Fix: rename a new channel in metadata/annotations.yaml (and bundle.Dockerfile) before
    users subscribe to it.

    Bad:
        operators.operatorframework.io.bundle.channels.v1: release-1.x
    Good:
        operators.operatorframework.io.bundle.channels.v1: stable,stable-v1
    """)


# ---------------------------------------------------------------------------------------
# disruption-budget

def _pdb_zero(node) -> bool:
    if not isinstance(node, Scalar) or isinstance(node.value, bool):
        return False
    v = node.value
    if isinstance(v, int):
        return v == 0
    if isinstance(v, str):
        return v.strip() in ("0", "0%")
    return False


def _pdb_full(node) -> bool:
    return isinstance(node, Scalar) and isinstance(node.value, str) and node.value.strip() == "100%"


@check("bundle")
def disruption_budget(bundle: Bundle, ctx):
    for m in bundle.manifests:
        kind = m.kind
        if kind == "PodDisruptionBudget":
            spec = m.spec()
            if spec is None:
                continue
            mu = spec.get("maxUnavailable")
            if _pdb_zero(mu):
                yield finding("disruption-budget", m.file, mu,
                              f"PodDisruptionBudget '{clip(m.name or '?')}' sets maxUnavailable to {clip(mu.raw)}: no pod may ever be evicted",
                              detail="Node drains hang and cluster upgrades stall (OLM's documented limit for bundled PDBs). "
                              "Allow at least one disruption (maxUnavailable: 1), or use minAvailable below the replica count.")
            ma = spec.get("minAvailable")
            if _pdb_full(ma):
                yield finding("disruption-budget", m.file, ma,
                              f"PodDisruptionBudget '{clip(m.name or '?')}' sets minAvailable to 100%: no pod may ever be evicted",
                              detail="Node drains hang and cluster upgrades stall (OLM's documented limit for bundled PDBs). "
                              "Use a lower percentage or count (e.g. minAvailable: 1 with 2 or more replicas), or maxUnavailable: 1.")
        elif kind == "PriorityClass" and isinstance(m.root, Mapping):
            gd = m.root.get("globalDefault")
            if isinstance(gd, Scalar) and gd.value is True:
                yield finding("disruption-budget", m.file, gd,
                              f"PriorityClass '{clip(m.name or '?')}' sets globalDefault: true, the priority of every pod in the cluster",
                              fix=fix_value(m.file, gd, "false", "globalDefault: false"),
                              detail="It would become the priority of every pod created without a priorityClassName, not only the "
                              "operator's (OLM's documented limit for bundled PriorityClasses). Set globalDefault: false and reference "
                              "the class by priorityClassName in the operator's pods.")


define("disruption-budget", "error", "A bundled PodDisruptionBudget blocks every eviction, or a bundled PriorityClass is the cluster default",
       category=CAT, refused_by=[
           refusal("catalog-ci", "operator-framework/api's object validator (operator-sdk bundle validate) errors on a PDB with "
                   "maxUnavailable 0/0% or minAvailable 100% and on a PriorityClass with globalDefault: true",
                   "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/object.go"),
           refusal("cluster-upgrade", "a PDB that allows no eviction makes nodes impossible to drain and blocks operator and cluster "
                   "upgrades (OLM's documented limit for bundled PDBs)",
                   "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/doc/design/adding-pod-disruption-budgets.md"),
       ], explanation="""
    What: a PodDisruptionBudget in the bundle with `maxUnavailable: 0` (or `"0%"`) or
    `minAvailable: "100%"`; a PriorityClass in the bundle with `globalDefault: true`.
    (A percentage such as `maxUnavailable: "50%"` is fine: operator-sdk's validator reads any
    string value as 0 and reports it; olm-check does not.)

    Why: OLM documents these limits for the objects it installs from a bundle. A budget that
    allows no disruption makes node drains hang, which stalls cluster upgrades and machine
    maintenance. A global-default PriorityClass changes the priority of every pod in the
    cluster, not only the operator's. Refused by operator-framework/api's object validator
    (operator-sdk bundle validate), and a budget without evictions blocks cluster upgrades.

    Fix: allow at least one disruption; set `globalDefault: false` and use
    `priorityClassName` in the operator's pods.

    Bad:
        kind: PodDisruptionBudget
        spec:
          maxUnavailable: 0
    Good:
        kind: PodDisruptionBudget
        spec:
          maxUnavailable: 1
    """)
