"""
What: the CSV's `metadata.name` follows `<package>.v<semver>`, and its version part is
the CSV's `spec.version` (e.g. `my-operator.v1.2.3` with `version: 1.2.3`).

Why: `replaces` chains and people reading an upgrade graph rely on the convention; a name
whose version differs from `spec.version` makes the graph misleading. operator-sdk's
good-practices validator (`checkBundleName`, operator-framework/api
pkg/validation/internal/good_practices.go, the same at v0.23.0 — operator-sdk v1.36.1, which
the community catalog CI runs with `--select-optional suite=operatorframework` — and
v0.45.0) warns on a name that does not end with a semantic version ("not following the
versioning convention") and on one without exactly one `.v` (`len(strings.Split(name,
".v")) != 2`: "not following the recommended naming convention: <operator-name>.v<semver>
e.g. memcached-operator.v0.0.1"), so `my-operator-1.2.3` draws that warning too: a
warning. The CI reports the validator's warnings without failing, and OLM uses the name
only as an identifier: nothing refuses either. Whether the prefix is the package name is
checked by `operator-name`.

Fix: rename the CSV to `<package>.v<spec.version>` (and update the next bundle's
`replaces`).

Bad:
    metadata:
      name: my-operator-1.2.3
    spec:
      version: 1.2.3
Good:
    metadata:
      name: my-operator.v1.2.3
    spec:
      version: 1.2.3
"""
from __future__ import annotations

import re

from ...context import Context
from ...model import Bundle
from ...upstream.blangsemver import is_strict as is_semver
from .. import define
from ..lib.csv import the_csv
from ..lib.csv_metadata import name_problem
from ..lib.text import clip, text

_CONVENTION = re.compile(r"(?P<op>.+?)\.v(?P<ver>\d.*)")

# operator-framework/api good_practices.go checkBundleName: a semantic version at the end of the name
_SDK_NAME_SEMVER = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+)?$")


RULE = define("csv-name-convention", "The CSV name is not <package>.v<semver>", __doc__, category="csv")


@RULE.check
def csv_name_convention(bundle: Bundle, ctx: Context):
    csv = the_csv(bundle)
    if csv is None:
        return
    md = csv.metadata
    n = md.get("name") if md is not None else None
    name = text(n)
    if not name or name_problem(name):
        return
    sp = csv.spec()
    version = text(sp.get("version")) if sp is not None else None
    version = version if version and is_semver(version) else None
    pkg = bundle.package
    m = _CONVENTION.fullmatch(name)
    if m is None or not is_semver(m.group("ver")):
        prefix = pkg or (m.group("op") if m else re.sub(r"[.-]?v?\d+(\.\d+)*([-+].*)?$", "", name) or name)
        want = f"{prefix}.v{version}" if version else f"{prefix}.v<semver>"
        if _sdk_accepts_name(name):
            yield RULE.at(csv.file, n,
                          f"the CSV name '{clip(name)}' has no '.v' before its version ('<package>.v<semver>').",
                          kind="no-dot-v",
                          detail="operator-sdk's good-practices check (checkBundleName in operator-framework/api, run by the "
                          "community catalog CI) warns that the name is 'not following the recommended naming convention: "
                          "<operator-name>.v<semver> e.g. memcached-operator.v0.0.1'. The CI does not fail on it and OLM uses "
                          f"the name only as an identifier. Name it '{want}' (and update the next bundle's replaces).")
        else:
            yield RULE.at(csv.file, n,
                          f"the CSV name '{clip(name)}' does not end with a semantic version ('<package>.v<semver>').",
                          kind="no-semver",
                          detail="operator-sdk's good-practices check, run by the catalog CI, warns on it, and readers of the "
                          f"upgrade graph cannot tell the version from the name. Name it '{want}'.")
        return
    if version and m.group("ver") != version:
        yield RULE.at(csv.file, n,
                      f"the CSV name '{clip(name)}' says version {clip(m.group('ver'), 30)} but spec.version is {clip(version, 30)}.",
                      detail=f"The upgrade graph then shows a version the bundle is not. Name it '{m.group('op')}.v{version}', "
                      "or fix spec.version.")


def _sdk_accepts_name(name: str) -> bool:
    m = _SDK_NAME_SEMVER.search(name)
    return m is not None and is_semver(m.group(0))
