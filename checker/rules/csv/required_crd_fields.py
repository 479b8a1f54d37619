"""
What: each entry of `spec.customresourcedefinitions.required` needs `name` (the CRD's
`metadata.name`, `<plural>.<group>`), `version` (a version the CRD serves) and `kind`;
the documentation also requires `displayName` and `description` for every entry. A CSV
may list one CRD once per version: each entry is checked, and its finding names the version.

Why: OLM matches required entries to CRDs already on the cluster by name, version and kind before it installs the operator (the CSV stays Pending until they exist). Without name, version or kind (or with a name that is not
`<plural>.<group>`) it cannot match the CRD and the install fails (error: the API server
refuses an entry without name, version or kind, as the CSV CRD's schema requires them,
and OLM's requirement check finds no CRD of that name). displayName and description are
what the console shows for the API; nothing refuses the CSV without them (warning).
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
      required:
        - name: widgets.example.com
          kind: Widget
Good:
    customresourcedefinitions:
      required:
        - name: widgets.example.com
          version: v1
          kind: Widget
          displayName: Widget
          description: A widget managed by the operator.
"""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv_install import CSV_CRD, OLM_REQ, crd_entries

RULE = define("required-crd-fields", "A required CRD entry lacks name, version or kind (error), or displayName/description (warning)",
              __doc__, category="csv", refused_by=[
                  refusal("api-server", "the CSV CRD's schema requires name, version and kind (strings) in every required entry", CSV_CRD),
                  refusal("olm-install", "OLM's requirement check looks the required CRD up by name and version; with none matching the CSV "
                          "stays Pending (RequirementsNotMet)", OLM_REQ),
              ])


@RULE.check
def required_crd_fields(bundle: Bundle, ctx: Context):
    yield from crd_entries(bundle, RULE.at, "required")
