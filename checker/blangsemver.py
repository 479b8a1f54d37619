"""Where ``checker.upstream.blangsemver`` used to live: the rule modules still import it from
here until they move (issue 28); new code imports ``checker.upstream.blangsemver``."""
from __future__ import annotations

from .upstream.blangsemver import (
    MAX_OCP_PROPERTY,
    SemverError,
    Version,
    check_range,
    coreos_new_version,
    is_strict,
    max_openshift_version,
    min_kube_version,
    npm_spec_contains,
    parse,
    parse_range,
    parse_tolerant,
    property_value_text,
    range_fn,
    try_parse_tolerant,
)

__all__ = ["MAX_OCP_PROPERTY", "SemverError", "Version", "check_range", "coreos_new_version", "is_strict",
           "max_openshift_version", "min_kube_version", "npm_spec_contains", "parse", "parse_range", "parse_tolerant",
           "property_value_text", "range_fn", "try_parse_tolerant"]
