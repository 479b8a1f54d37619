"""The entries of a CSV's owned and required CRDs and API services (``spec.customresourcedefinitions``,
``spec.apiservicedefinitions``): what owned-crd-fields, required-crd-fields and apiservice-definitions
share -- an entry's resources and descriptors, its console text -- and the CRD entries' own checks.

Every reader tolerates any shape of input and yields findings through ``at`` (the rule's ``RULE.at``).
Descriptor lists are read from the CSV's own text (the loader builds no nodes for them,
``load.SKIP_KEYS``), parsed with ``yamlload`` only when a cheap look at the text fails.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import accumulate
from typing import Callable, Optional

from ... import yamlload
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence, Skipped
from ...versions import clip
from ...yamlload import resolve_plain
from .csv import csv_spec
from .csv_annotations import internal_names
from .text import shape, show, stripped

CSV_CRD = "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_clusterserviceversions.yaml"
OLM_REQ = "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/operators/olm/requirements.go"

_CRD_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+")


def crd_entries(bundle: Bundle, at: Callable, which: str):
    """The findings on the CSV's ``spec.customresourcedefinitions.<which>`` entries (``owned`` or
    ``required``); the shape of customresourcedefinitions itself is reported under ``owned``."""
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
            yield at(sf, crds, f"spec.customresourcedefinitions is {crds.type_name()}, not a mapping with 'owned' and 'required' lists",
                     detail="OLM cannot read the CSV's APIs. Write customresourcedefinitions: {owned: [...]}.")
        return
    lst = crds.get(which)
    if lst is None or (isinstance(lst, Scalar) and lst.value is None):
        return
    internal = internal_names(csv.annotations())
    if not isinstance(lst, Sequence):
        yield at(sf, lst, f"spec.customresourcedefinitions.{which} is {lst.type_name()}, not a list of CRD entries",
                 detail="The API server rejects the CSV. Write a list of entries with name, version, kind, displayName and description.")
        return
    for entry in lst:
        if not isinstance(entry, Mapping):
            yield at(sf, entry, f"this {which} CRD entry is {entry.type_name()}, not a mapping with name, version and kind",
                     detail="The API server rejects the CSV. Write the entry as a mapping.")
            continue
        label = clip(stripped(entry.get("name")) or stripped(entry.get("kind")) or "this entry")
        # a CSV often owns one CRD once per version: the version tells its entries apart
        ver = stripped(entry.get("version"))
        suffix = f" (version {clip(ver, 30)})" if ver else ""
        for key, what in (("name", "the CRD's metadata.name, '<plural>.<group>'"), ("version", "the API version, e.g. v1"), ("kind", "the kind, e.g. Widget")):
            v = entry.get(key)
            if v is None:
                hint = ""
                if key == "name" and which == "owned":
                    guess = _crd_name_for_kind(bundle, stripped(entry.get("kind")))
                    if guess:
                        hint = f" (the bundle's CRD for this kind is '{guess}')"
                yield at(sf, entry, f"the {which} CRD entry '{label}'{suffix} has no {key}",
                         detail=f"The {key} is {what}{hint}; OLM cannot match the CRD without it and the install fails. Add {key}.")
            elif stripped(v) is None:
                yield at(sf, v, f"the {key} of the {which} CRD entry '{label}'{suffix} is {show(v)}, not a non-empty string", detail=f"The {key} is {what}; OLM cannot match the CRD. Write the {key} as a string.")
            elif key == "name" and not _CRD_NAME.fullmatch(stripped(v)):
                yield at(sf, v, f"the {which} CRD name '{clip(stripped(v))}'{suffix} is not '<plural>.<group>'",
                         detail="A CRD's metadata.name always has that form (lowercase, with the API group after the first dot, "
                         "e.g. widgets.example.com), so OLM can never match this entry. Write the CRD's metadata.name.")
        yield from entry_lists(at, sf, entry, f"the {which} CRD entry '{label}'{suffix}")
        if which == "owned" and stripped(entry.get("name")) in internal:
            continue  # the console hides internal objects: their UI text is never shown
        yield from ui_text(at, sf, entry, f"the {which} CRD entry '{label}'{suffix}")


# The CSV CRD's schema (operator-framework/api crds/operators.coreos.com_clusterserviceversions.yaml):
# a resources item (APIResourceReference) requires kind, name and version: the API server
# refuses a CSV that lacks one. A spec, status or action descriptor requires path: see
# descriptors (the loader does not build descriptors into nodes, load.SKIP_KEYS).
_LISTS = (("resources", ("kind", "name", "version"), "a resource entry"),)


def entry_lists(at: Callable, sf, entry: Mapping, what: str):
    """The shapes the API server refuses in an owned/required API entry's resources and descriptors."""
    yield from descriptors(at, sf, entry, what)
    for key, required, one in _LISTS:
        lst = entry.get(key)
        if lst is None or (isinstance(lst, Scalar) and lst.value is None):
            continue
        if not isinstance(lst, Sequence):
            yield at(sf, lst, f"{key} of {what} is {lst.type_name()}, not a list", detail=(
                f"The ClusterServiceVersion CRD's schema types {key} as a list: the API server refuses the CSV. Write a list."))
            continue
        for item in lst:
            if not isinstance(item, Mapping):
                yield at(sf, item, f"{one} of {what} is {item.type_name()}, not a mapping", detail=(
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
                    yield at(sf, item, f"{one} of {what} has no {field}", kind="resource-field", detail=(
                        f"The ClusterServiceVersion CRD's schema requires {', '.join(required)} in each {key} item. OLM creates "
                        f"the CSV from operator-framework/api's Go types, which write a missing {field} as \"\", so the API "
                        f"server accepts it; only a CSV applied as written (kubectl) is refused, and the console shows the "
                        f"resource without its {field}. Add {field}" + (" (e.g. v1)." if field == "version" else " (e.g. Deployment).")))
                elif not (isinstance(v, Scalar) and isinstance(v.value, str)):
                    yield at(sf, v, f"the {field} of {one} of {what} is {v.type_name()}", detail=(
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


def descriptors(at: Callable, sf, entry: Mapping, what: str):
    for key in _DESCRIPTORS:
        lst = entry.get(key)
        if lst is None or (isinstance(lst, Scalar) and lst.value is None):
            continue
        base = 0  # the line before the list's first line, for nodes parsed from its own text
        if shape(lst) != "sequence":  # (a skipped value knows its shape, not its type)
            yield at(sf, lst, f"{key} of {what} is {'a mapping' if shape(lst) == 'mapping' else 'a single value'}, not a list", detail=(
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
                yield at(sf, item, f"{one} {n} of {what} is {item.type_name()}, not a mapping with a path",
                         line=item.line + base, detail=(
                                  f"Each item of {key} is a descriptor (path, displayName, description, x-descriptors): "
                                  "operator-framework/api cannot decode the CSV (operator-sdk bundle validate, preflight and "
                                  "OLM's install all decode it), and the API server's schema refuses it. Write the item as a mapping."))
                continue
            v = item.get("path")
            if v is None or (isinstance(v, Scalar) and (v.value is None or (isinstance(v.value, str) and not v.value.strip()))):
                pathless.append((n, item, v))  # null and "" are what Go's decoder makes of a missing path too
            elif not (isinstance(v, Scalar) and isinstance(v.value, str)):
                yield at(sf, v, f"the path of {one} {n} of {what} is {v.type_name()}, not a string",
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
            yield at(sf, item, message, kind="descriptor-path", line=item.line + base, detail=(
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


@lru_cache(maxsize=2)
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


@lru_cache(maxsize=64)  # an operator's bundles repeat their CSVs' descriptor lists
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


def ui_text(at: Callable, sf, entry: Mapping, what: str):
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
        yield at(sf, node or entry, f"{what} has {' and '.join(lacking)}", kind="ui-text",
                 detail=f"The console shows them for this API and the CSV documentation requires both. Add {keys}.")


def _crd_name_for_kind(bundle: Bundle, kind: Optional[str]) -> Optional[str]:
    """metadata.name of the bundle's CRD for ``kind`` (for a hint when a name is missing)."""
    for m in bundle.crds:
        sp = m.spec()
        names = sp.get("names") if sp is not None else None
        if kind and isinstance(names, Mapping) and stripped(names.get("kind")) == kind and m.name:
            return m.name
    return None


# The explanation owned-crd-fields and required-crd-fields share (one text, two lists).
CRD_ENTRY_EXPLANATION = """
What: each entry of `spec.customresourcedefinitions.{which}` needs `name` (the CRD's
`metadata.name`, `<plural>.<group>`), `version` (a version the CRD serves) and `kind`;
the documentation also requires `displayName` and `description` for every entry. A CSV
may list one CRD once per version: each entry is checked, and its finding names the version.

Why: {why} Without name, version or kind (or with a name that is not
`<plural>.<group>`) it cannot match the CRD and the install fails (error: the API server
refuses an entry without name, version or kind, as the CSV CRD's schema requires them,
and OLM's requirement check finds no CRD of that name). displayName and description are
what the console shows for the API; nothing refuses the CSV without them (warning).{extra}
A `resources` item that is not a mapping, or whose kind, name or version is not a string, is
an error (operator-framework/api cannot decode the CSV). A missing kind or version is only
info, though the CSV CRD's schema (and seed 004) requires them: OLM creates the CSV from the
Go type APIResourceReference, which writes a missing field as "", so the API server
accepts it (certified-operators holds hundreds of such entries). A missing name is not
reported: the type documents it as empty for a resource that is not a custom resource.

Descriptors (`specDescriptors`, `statusDescriptors`, `actionDescriptors`): a list that is not a
list, an item that is not a mapping, or a path that is not a string (`path: 5`) is an error:
operator-framework/api's Go types cannot decode the CSV (operator-sdk bundle validate,
preflight and OLM's install plan, which json.Unmarshals the CSV before creating it). A
missing, null or empty path is a warning, though the CSV CRD's schema requires path (and
seed 004 says every descriptor has one): SpecDescriptor.Path is `json:"path"` without
omitempty, so OLM's typed client sends "" and the API server accepts it; the console then
takes the whole spec or status as the descriptor's field (descriptors/utils.tsx,
`[descriptorType, ..._.toPath(descriptor.path)]`).


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


def crd_entry_explanation(which: str, why: str, extra: str = "") -> str:
    """CRD_ENTRY_EXPLANATION for the `owned` or `required` list."""
    return CRD_ENTRY_EXPLANATION.format(which=which, why=why, extra=extra)
