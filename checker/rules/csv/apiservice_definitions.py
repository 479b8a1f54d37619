"""
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
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from ...nodes import Mapping, Scalar, Sequence
from ...versions import clip
from .. import define, refusal
from ..lib.csv import csv_spec, deployment_names
from ..lib.csv_install import CSV_CRD, entry_lists, ui_text
from ..lib.text import lacking, stripped

RULE = define("apiservice-definitions", "An owned or required API service entry is incomplete, or names a deployment the CSV does not have",
              __doc__, category="csv", refused_by=[
                  refusal("api-server", "the CSV CRD's schema requires group, version, kind and name in every API service entry", CSV_CRD),
                  refusal("olm-install", "OLM creates the owned APIService's service and certificate for deploymentName and checks required "
                          "APIServices before installing; a missing field or deployment leaves the CSV failing or Pending",
                          "https://github.com/operator-framework/operator-lifecycle-manager/blob/master/pkg/controller/install/apiservice.go"),
              ])


@RULE.check
def apiservice_definitions(bundle: Bundle, ctx: Context):
    cs = csv_spec(bundle)
    if cs is None:
        return
    csv, spec = cs
    sf = csv.file
    defs = spec.get("apiservicedefinitions")
    if defs is None or (isinstance(defs, Scalar) and defs.value is None):
        return
    if not isinstance(defs, Mapping):
        yield RULE.at(sf, defs, f"spec.apiservicedefinitions is {defs.type_name()}, not a mapping with 'owned' and 'required' lists", detail="The API server rejects the CSV.")
        return
    deps = deployment_names(spec)
    for which in ("owned", "required"):
        lst = defs.get(which)
        if lst is None or (isinstance(lst, Scalar) and lst.value is None):
            continue
        if not isinstance(lst, Sequence):
            yield RULE.at(sf, lst, f"spec.apiservicedefinitions.{which} is {lst.type_name()}, not a list of API service entries", detail="The API server rejects the CSV.")
            continue
        for entry in lst:
            if not isinstance(entry, Mapping):
                yield RULE.at(sf, entry, f"this {which} API service entry is {entry.type_name()}, not a mapping with group, version, kind and name", detail="The API server rejects the CSV.")
                continue
            label = clip(".".join(x for x in (stripped(entry.get("name")), stripped(entry.get("group"))) if x) or stripped(entry.get("kind")) or "this entry")
            for key, what in (("group", "the API group, e.g. metrics.example.com"), ("version", "the version, e.g. v1"),
                              ("kind", "the kind, e.g. Widget"), ("name", "the plural resource name, e.g. widgets")):
                v = entry.get(key)
                if v is None or stripped(v) is None:
                    node = entry if v is None else v
                    why = ("OLM creates the APIService <version>.<group> from these fields" if which == "owned"
                           else "OLM waits for the APIService <version>.<group> to be available before installing")
                    yield RULE.at(sf, node, f"the {which} API service entry '{label}' has {lacking(v, key)}",
                                  detail=f"The {key} is {what}; {why}, so the install cannot succeed. Write {key} as a non-empty string.")
            if which == "owned":
                dn = entry.get("deploymentName")
                name = stripped(dn)
                if name is None:
                    yield RULE.at(sf, entry if dn is None else dn,
                                  f"the owned API service entry '{label}' has {lacking(dn, 'deploymentName')}",
                                  detail="OLM serves the API from that deployment (it mounts the serving certificate into it and points the "
                                  "APIService's Service at it), so the APIService never becomes available. Set deploymentName to one of "
                                  f"the CSV's deployments ({', '.join(deps) or 'none defined'}).")
                elif name not in deps:
                    yield RULE.at(sf, dn,
                                  f"deploymentName '{clip(name)}' of the owned API service '{label}' is not a deployment of this CSV",
                                  detail=f"The CSV's install strategy has {', '.join(deps) or 'no deployment'}; OLM cannot find the deployment "
                                  "to serve the API and the install fails. Use one of the CSV's deployment names.")
            yield from entry_lists(RULE.at, sf, entry, f"the {which} API service entry '{label}'")
            yield from ui_text(RULE.at, sf, entry, f"the {which} API service entry '{label}'")
