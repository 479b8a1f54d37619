"""
What: the `olm.maxOpenShiftVersion` property (CSV annotation `olm.properties` or
metadata/properties.yaml) must be a JSON/YAML string `"{major}.{minor}"`. A number (an
unquoted `4.20` is the float 4.2), an empty value, something unparsable (OLM uses blang/semver
`ParseTolerant`, which refuses build metadata on a short version: `4.8+build`), a non-zero
patch or a pre-release (`4.8.1`, `4.8.0-rc.1`), or invalid `olm.properties` JSON is an error;
`4.8.0`, `4.8.0+build` or `v4.8` is a warning.

Why: today's OLM reports the CSV as having an invalid olm.maxOpenShiftVersion and blocks
every minor cluster upgrade; older OLM failed on a number. A number has two readings, and
the finding says both and lets the author choose: `4.10` as written, `4.1` as a float.
OLM holds a property's raw JSON text, so in the olm.properties annotation it reads `4.10`;
opm converts metadata/properties.yaml with a YAML parser, so there OLM gets `4.1`.

Refused by: OLM's `maxOpenShiftVersion()` (operator-lifecycle-manager,
pkg/controller/operators/openshift/helpers.go), which blocks cluster upgrades.

Fix: write it as a quoted major.minor.

Bad:
    properties:
      - type: olm.maxOpenShiftVersion
        value: 4.20
Good:
    properties:
      - type: olm.maxOpenShiftVersion
        value: "4.20"
"""
from __future__ import annotations

from typing import Optional

from ...context import Context
from ...finding import Fix
from ...model import Bundle
from ...nodes import Scalar
from ...versions import vstr
from .. import define, refusal
from ..lib.fixes import fix_value
from ..lib.versions_common import OLM_MAX

RULE = define("max-ocp-version-syntax", "olm.maxOpenShiftVersion is not a valid {major}.{minor} string",
              __doc__, category="version", refused_by=[
    refusal("cluster-upgrade", "OLM cannot read the value, reports the CSV as having an invalid olm.maxOpenShiftVersion and marks "
            "the cluster not upgradeable to any minor release",
            OLM_MAX),
])


@RULE.check
def max_ocp_version_syntax(bundle: Bundle, ctx: Context):
    for d in bundle.versions.max_ocp_decls:
        if d.error:
            yield RULE.at(d.file, d.node, f"olm.maxOpenShiftVersion: {d.error.message}", fix=_max_fix(d), detail=d.error.detail)
        elif d.warning:
            yield RULE.at(d.file, d.node, f"olm.maxOpenShiftVersion: {d.warning.message}", kind="form",
                          fix=_max_fix(d), detail=d.warning.detail)


def _max_fix(d) -> Optional[Fix]:
    if d.where != "properties.yaml" or d.version is None and not isinstance(d.value, (int, float)):
        return None
    if d.version is not None:
        new = f'"{vstr(d.version)}"'
    elif isinstance(d.value, (int, float)) and not isinstance(d.value, bool) and isinstance(d.node, Scalar):
        if d.node.raw != (repr(float(d.value)) if isinstance(d.value, float) else str(d.value)):
            return None  # 4.10 as written, 4.1 as YAML reads it: the author chooses
        new = f'"{d.node.raw}"'
    else:
        return None
    return fix_value(d.file, d.node, new, "write maxOpenShiftVersion as a quoted major.minor")
