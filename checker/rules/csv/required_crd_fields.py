"""Required CRD entries: their fields, resources and descriptors (explanation: lib.csv_install.CRD_ENTRY_EXPLANATION)."""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv_install import CSV_CRD, OLM_REQ, crd_entries, crd_entry_explanation

_WHY = ('OLM matches required entries to CRDs already on the cluster by name, version and kind before it '
        'installs the operator (the CSV stays Pending until they exist).')
RULE = define("required-crd-fields", "A required CRD entry lacks name, version or kind (error), or displayName/description (warning)",
              crd_entry_explanation("required", _WHY), category="csv", refused_by=[
                  refusal("api-server", "the CSV CRD's schema requires name, version and kind (strings) in every required entry", CSV_CRD),
                  refusal("olm-install", "OLM's requirement check looks the required CRD up by name and version; with none matching the CSV "
                          "stays Pending (RequirementsNotMet)", OLM_REQ),
              ])


@RULE.check
def required_crd_fields(bundle: Bundle, ctx: Context):
    yield from crd_entries(bundle, RULE.at, "required")
