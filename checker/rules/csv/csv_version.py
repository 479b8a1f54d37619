"""
What: `spec.version` must be a semantic version string (`MAJOR.MINOR.PATCH`, optionally
`-prerelease` and `+build`), without a leading `v`. (A CSV without `spec.version` is
reported by `csv-required-fields`.)

Why: OLM parses it as semver to order bundles (semver-mode channels, skipRange). The
catalog CI's required-fields check fails anything but a strict semantic version (OLM
itself parses tolerantly: `v1.2` passes there); a number (an unquoted `1.0` is read by
YAML as a float) or text that is no version at all makes the CSV undecodable for OLM.

Fix: write the version as `1.2.3` (quoted if in doubt).

Bad:
    spec:
      version: v1.2
Good:
    spec:
      version: 1.2.0
"""
from __future__ import annotations

import re

from ...context import Context
from ...model import Bundle
from ...nodes import Scalar
from ...upstream.blangsemver import is_strict as is_semver
from .. import define, refusal
from ..lib.csv import the_csv
from ..lib.csv_metadata import PIPE_COMMUNITY
from ..lib.fixes import dq, fix_value
from ..lib.text import clip, is_blank

RULE = define("csv-version", "spec.version is not a semantic version", __doc__, category="csv", refused_by=[
    refusal("catalog-ci", "check_required_fields fails a spec.version that is not a strict semantic version", PIPE_COMMUNITY),
    refusal("olm-install", "OLM decodes spec.version with semver.ParseTolerant: a value that is not a string, or not a version even "
            "tolerantly, makes the bundle's CSV undecodable",
            "https://github.com/operator-framework/api/blob/master/pkg/lib/version/version.go"),
])


@RULE.check
def csv_version(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    sp = csv.spec()
    v = sp.get("version") if sp is not None else None
    if v is None or is_blank(v):
        return
    sf = csv.file
    if not isinstance(v, Scalar):
        yield RULE.at(sf, v, f"spec.version is {v.type_name()}, not a semantic version string.",
                      detail="OLM reads the version as a string. Write a semantic version such as \"1.2.3\".")
        return
    if not isinstance(v.value, str):
        yield RULE.at(sf, v,
                      f"spec.version is {v.type_name()} ({clip(v.raw, 30)}): YAML reads an unquoted {clip(v.raw, 30)} as a number, "
                      "not a version string.",
                      detail=f"OLM needs a semantic version string. Write a full version such as \"{_semverish(v.raw)}\".",
                      fix=fix_value(sf, v, dq(_semverish(v.raw)), "write spec.version as a semver string"))
        return
    s = v.value
    if is_semver(s):
        return
    fix = None
    hint = ""
    what = ""
    if s[:1] in ("v", "V") and is_semver(s[1:]):
        what = f": it has a leading '{s[0]}'"
        hint = f" Drop the leading 'v': {s[1:]}."
        fix = fix_value(sf, v, s[1:] if v.style is None else dq(s[1:]), "drop the leading v")
    elif s.strip() != s and is_semver(s.strip()):
        what = ": it has spaces around it"
        hint = f" Remove the surrounding spaces: {s.strip()}."
        fix = fix_value(sf, v, s.strip(), "remove the spaces")
    else:
        hint = f" For example: {_semverish(s)}."
    yield RULE.at(sf, v, f"spec.version '{clip(s)}' is not a semantic version{what}.",
                  detail="A semantic version is MAJOR.MINOR.PATCH[-prerelease][+build], numbers without leading zeros; the "
                  f"catalog CI's semver check fails anything else and tools that order bundles strictly cannot place it.{hint}",
                  fix=fix)


def _semverish(s: str) -> str:
    parts = re.findall(r"\d+", s or "")[:3]
    parts = [str(int(p)) for p in parts] + ["0"] * (3 - len(parts[:3]))
    return ".".join(parts[:3])
