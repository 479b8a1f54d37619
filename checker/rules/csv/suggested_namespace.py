"""
What: `operatorframework.io/suggested-namespace` is a valid namespace name (a DNS-1123
label: lower-case letters, digits and '-', at most 63 characters), and
`operatorframework.io/suggested-namespace-template` is a JSON Namespace object
(`apiVersion: v1`, `kind: Namespace`, a valid `metadata.name`). Setting both with
different names is a warning: the console uses the template's name and ignores the plain
one (openshift/console, operator-hub-subscribe.tsx: `suggestedNamespaceTemplateName ||
suggestedNamespace`). Both naming the same namespace is info: nothing changes.

Why: the console creates this namespace when a user installs the operator; an invalid
name makes that step fail in the install form, and a template that is not valid JSON is
silently ignored (the console JSON.parses it), so the namespace is created without the
labels and annotations it carried. Only the console's install form is affected and
nothing refuses the bundle: warnings.

Fix: write a valid name, or a complete Namespace in JSON.

Bad:
    operatorframework.io/suggested-namespace: My_Operator
Good:
    operatorframework.io/suggested-namespace: my-operator
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from ...upstream.k8s_names import DNS1123_LABEL_RULE, dns_label_problem
from .. import define
from ..lib.csv import the_csv
from ..lib.json_values import json_type, load_json
from ..lib.text import clip, is_blank, shown, text

SUGGESTED = "operatorframework.io/suggested-namespace"

SUGGESTED_T = "operatorframework.io/suggested-namespace-template"


RULE = define("suggested-namespace",
              "suggested-namespace is not a valid namespace name, or the template is not a JSON Namespace", __doc__,
              category="csv")


@RULE.check
def suggested_namespace(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    ann = csv.annotations()
    if ann is None:
        return
    sf = csv.file
    ns = ann.get(SUGGESTED)
    if ns is not None and not is_blank(ns):
        s = text(ns)
        p = dns_label_problem(s) if s is not None else f"is {ns.type_name()}"
        if p:
            yield RULE.at(sf, ns, f"the suggested namespace '{shown(ns)}' {p}.",
                          detail=f"{DNS1123_LABEL_RULE[:1].upper()}{DNS1123_LABEL_RULE[1:]}; the console cannot create it when "
                          "users install the operator. Write a namespace name such as 'my-operator'.")
    elif ns is not None:
        yield RULE.at(sf, ns, f"{SUGGESTED} is empty.",
                      detail="The console would suggest no namespace. Write a namespace name or remove the annotation.")
    tpl = ann.get(SUGGESTED_T)
    if tpl is None:
        return
    if not (isinstance(tpl, Scalar) and isinstance(tpl.value, str)) or is_blank(tpl):
        yield RULE.at(sf, tpl, f"{SUGGESTED_T} is {tpl.type_name()}, not a string holding a JSON Namespace object.",
                      detail="Write the Namespace as JSON text, e.g. '{\"apiVersion\": \"v1\", \"kind\": \"Namespace\", "
                      "\"metadata\": {\"name\": \"my-operator\"}}'.")
        return
    doc, err = load_json(sf, tpl)
    if err is not None:
        yield RULE.at(sf, None, f"{SUGGESTED_T} is not valid JSON: {err.reason}.",
                      detail=err.at() + "The console JSON.parses it and silently ignores it, so the namespace is not created from the "
                      "template (nor with its labels and annotations). Fix the JSON at this position.",
                      line=err.line, column=err.column)
        return
    problems = []
    if not isinstance(doc, dict):
        problems.append(f"it is {json_type(doc)}, not a Namespace object")
    else:
        if doc.get("apiVersion") != "v1":
            problems.append("apiVersion must be \"v1\"")
        if doc.get("kind") != "Namespace":
            problems.append("kind must be \"Namespace\"")
        m = doc.get("metadata")
        name = m.get("name") if isinstance(m, dict) else None
        if not isinstance(name, str) or not name:
            problems.append("metadata.name is missing")
        else:
            p = dns_label_problem(name)
            if p:
                problems.append(f"metadata.name '{clip(name, 40)}' {p}")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        yield RULE.at(sf, tpl, f"{SUGGESTED_T} is not a valid Namespace: {problems[0]}{more}.",
                      detail=(f"All: {'; '.join(problems)}. " if more else "")
                      + (f"{DNS1123_LABEL_RULE[:1].upper()}{DNS1123_LABEL_RULE[1:]}. " if any("DNS-1123" in p for p in problems) else "")
                      + "The console creates this object when users install the operator. Write e.g. {\"apiVersion\": \"v1\", "
                      "\"kind\": \"Namespace\", \"metadata\": {\"name\": \"my-operator\"}}.")
    elif ns is not None and not is_blank(ns):
        tname = doc["metadata"]["name"]
        plain = ns.value.strip() if isinstance(ns, Scalar) and isinstance(ns.value, str) else None
        if plain == tname:
            # the console takes the template's name, the same one: nothing changes (info)
            yield RULE.at(sf, ann.key_node(SUGGESTED_T), f"both {SUGGESTED} and {SUGGESTED_T} are set, naming '{clip(tname, 40)}'.",
                          kind="same-name", detail="The console uses the template's namespace, the same one, so nothing is lost; a "
                          "console without template support reads the plain name. Nothing to change.")
        else:
            yield RULE.at(sf, ann.key_node(SUGGESTED_T),
                          f"{SUGGESTED} names '{clip(plain or '', 40)}' but {SUGGESTED_T} names '{clip(tname, 40)}'.",
                          detail=f"The console uses the template and ignores the plain name, so it suggests '{clip(tname, 40)}'. "
                          "Make both name the same namespace, or keep only the template.")
