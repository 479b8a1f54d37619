"""
What: the CSV's multi-architecture labels `operatorframework.io/arch.<arch>: supported`
and `operatorframework.io/os.<os>: supported` use an architecture OpenShift runs (amd64,
arm64, ppc64le, s390x) or operating system (linux, zos), and the value `supported`
(`unsupported` is accepted too: it states non-support explicitly; a valid Go GOARCH/GOOS
that OpenShift does not run, such as windows, is not reported in the `operatorhub`
profile). A CSV that adds a non-default architecture or OS must list the defaults
(`arch.amd64`, `os.linux`) explicitly if it supports them. The labels belong in
`metadata.labels`, not annotations. Every finding is a warning: OLM's package server and
the console only filter OperatorHub by these labels, and nothing refuses the bundle
(operator-sdk's multiarch validator errors only when an image lacks a listed platform,
which needs the images and is not checked here).

Why: OLM treats a CSV without arch labels as amd64-only and without os labels as
linux-only; once any arch label is present, only the listed ones count, so adding
`arch.arm64` alone makes the operator disappear from amd64 clusters' OperatorHub. A label
with another value, or an unknown architecture, matches no filter.

Fix: list every supported architecture and OS with the value `supported`.

Bad:
    labels:
      operatorframework.io/arch.arm64: "true"
Good:
    labels:
      operatorframework.io/arch.amd64: supported
      operatorframework.io/arch.arm64: supported
      operatorframework.io/os.linux: supported
"""
from __future__ import annotations

import difflib

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar
from .. import define
from ..lib.csv import data, the_csv
from ..lib.csv_annotations import first_names
from ..lib.fixes import fix_key, fix_value
from ..lib.text import clip, shown, text

RULE = define("arch-os-labels",
              "operatorframework.io/arch.* / os.* label with an unknown value or key; non-default arch/os without the defaults", __doc__,
              category="csv")


@RULE.check
def arch_os_labels(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sf = csv.file
    ma = data()["multiarch"]
    md = csv.metadata
    labels = md.get("labels") if md is not None else None
    kinds = (("arch", ma["arch_prefix"], ma["arch"], ma["other_arch"], ma["default_arch"]),
             ("os", ma["os_prefix"], ma["os"], ma["other_os"], ma["default_os"]))
    if isinstance(labels, Mapping):
        for what, prefix, known, other, default in kinds:
            found = []
            for k, v in labels.items():
                ks = text(k)
                if ks is None or not ks.startswith(prefix):
                    continue
                name = ks[len(prefix):]
                found.append((name, k))
                if name not in known:
                    if name in other:
                        # a target without OpenShift releases (OperatorHub.io) does not report it (verdicts.yaml)
                        yield RULE.at(sf, k, f"'{name}' is a valid {what} but OpenShift does not run on it.",
                                      kind="not-openshift",
                                      detail=f"OpenShift {what}es: {', '.join(known)}; the label only matters for upstream "
                                      "OperatorHub. Remove it for OpenShift catalogs.")
                    else:
                        close = difflib.get_close_matches(name.lower(), known + other, n=1, cutoff=0.6)
                        g = close[0] if close else None
                        yield RULE.at(sf, k, f"'{clip(ks)}' names an unknown {what} '{clip(name, 30)}'.",
                                      detail=f"No cluster or OperatorHub filter matches it. Known: {', '.join(known)}."
                                      + (f" Did you mean '{prefix}{g}'?" if g else ""),
                                      fix=fix_key(sf, k, prefix + g, f"rename to {prefix}{g}") if g else None)
                if not (isinstance(v, Scalar) and v.value in (ma["value"], ma["value_not"])):
                    yield RULE.at(sf, v, f"'{clip(ks)}' is '{shown(v, 30)}', not 'supported'.",
                                  detail="OLM and the console only match the value 'supported' (anything else means not "
                                  "supported). Write 'supported', or remove the label.",
                                  fix=fix_value(sf, v, ma["value"], "write supported") if isinstance(v, Scalar) else None)
            names = [n for n, _ in found]
            if found and default not in names:
                k = found[0][1]
                listed, _cut = first_names(names, 40)
                yield RULE.at(sf, k, f"the CSV lists {what} labels ({listed}) but not {prefix}{default}.",
                              detail=(f"It lists {', '.join(names)}. " if _cut else "")
                              + f"Without any {what} label OLM assumes {default}, but once one is present only the listed ones "
                              f"count, so the operator no longer shows on {default} clusters. Add '{prefix}{default}: supported' "
                              "if it runs there.")
    ann = csv.annotations()
    for k, _v in (ann.items() if ann is not None else ()):
        ks = text(k)
        if ks and (ks.startswith(ma["arch_prefix"]) or ks.startswith(ma["os_prefix"])):
            yield RULE.at(sf, k, f"'{clip(ks)}' is an annotation, but OLM and the console read it from metadata.labels.",
                          detail="As an annotation it has no effect on architecture and OS support. Move it "
                          "under metadata.labels.")
