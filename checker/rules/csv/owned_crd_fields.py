"""Owned CRD entries: their fields, resources and descriptors (explanation: lib.csv_install.CRD_ENTRY_EXPLANATION)."""
from __future__ import annotations

from ...context import Context
from ...model import Bundle
from .. import define, refusal
from ..lib.csv_install import CSV_CRD, OLM_REQ, crd_entries, crd_entry_explanation

_WHY = ('OLM matches owned entries to the CRDs shipped in the bundle by name and serves the API from the '
        'listed version.')
_EXTRA = ('\n'
          'CRDs listed in the `operators.operatorframework.io/internal-objects` annotation get no\n'
          'displayName/description warning: the console hides them.')
RULE = define("owned-crd-fields", "An owned CRD entry lacks name, version or kind (error), or displayName/description (warning)",
              crd_entry_explanation("owned", _WHY, _EXTRA), category="csv", refused_by=[
                  refusal("api-server", "the CSV CRD's schema requires name, version and kind (strings) in every owned entry", CSV_CRD),
                  refusal("olm-install", "OLM's requirement check looks the owned CRD up by name and version; with none matching the CSV "
                          "stays Pending (RequirementsNotMet)", OLM_REQ),
              ])


@RULE.check
def owned_crd_fields(bundle: Bundle, ctx: Context):
    yield from crd_entries(bundle, RULE.at, "owned")
