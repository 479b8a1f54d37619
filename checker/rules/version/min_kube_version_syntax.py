"""
What: the CSV's `spec.minKubeVersion` must be a full semantic version `x.y.z` (a leading
`v` is tolerated).

Why: OLM parses it when installing; `1.21` fails the install with "CSV version parsing
error".

Refused by: OLM's install (`minKubeVersionStatus`, pkg/controller/operators/olm/requirements.go).

Fix: write the patch part.

Bad:
    minKubeVersion: 1.21
Good:
    minKubeVersion: 1.21.0
"""
from __future__ import annotations

import re

from ...context import Context
from ...model import Bundle
from ...versions import parse_min_kube
from .. import define, refusal
from ..lib.fixes import fix_value
from ..lib.versions_common import OLM_REQUIREMENTS, min_kube_place

RULE = define("min-kube-version-syntax", "spec.minKubeVersion is not a strict major.minor.patch version",
              __doc__, category="version", refused_by=[
    refusal("olm-install", "OLM parses minKubeVersion as a strict major.minor.patch version; anything else fails the CSV's "
            "requirements with \"CSV version parsing error\"",
            OLM_REQUIREMENTS),
])


@RULE.check
def min_kube_version_syntax(bundle: Bundle, ctx: Context):
    file, node = min_kube_place(bundle)
    if node is None:
        return
    _, err = parse_min_kube(node.value, node.raw)
    if err:
        fix = None
        if isinstance(node.value, str) and re.fullmatch(r"v?\d+\.\d+", node.value.strip()):
            fix = fix_value(file, node, node.value.strip() + ".0", "add the patch part")
        elif isinstance(node.value, float) and re.fullmatch(r"\d+\.\d+", node.raw):
            fix = fix_value(file, node, node.raw + ".0", "add the patch part")
        yield RULE.at(file, node, err.message, fix=fix, detail=err.detail)
