"""Reading ``.olm-check.yaml`` into a ``config.Config``: severity overrides, disabled rules,
per-path overrides, extra OCP releases, limits. Validated strictly: a mistake in it is a usage
error (exit 2, ``ConfigError``) with a clear message.

```yaml
profile: community            # community | certified | operatorhub | minimal
fail_on: error                # error | warning | info | never
rules:                        # per rule id: error | warning | info | off
  csv-categories: off
paths:                        # per-path overrides (glob on repository-relative paths)
  - path: "operators/legacy-*/**"
    rules: {removed-api: warning}
ocp_releases:                 # add or override OpenShift releases (ocp.yaml format)
  - {ocp: "4.24", kube: "1.37", ga: false}
apis:                         # extra removed/introduced API entries (apis.yaml format)
  removed: []
limits: {max_file_mib: 16, max_depth: 128, max_alias_nodes: 100000}
categories: [...]             # the allowed CSV categories (replaces the standard set)
catalogsource_schema: legacy  # legacy | proposed
exclude:                      # gitignore-style patterns (relative to this file's directory): never checked
  - deploy/olm-legacy/
```
"""
from __future__ import annotations

import os
from typing import Any, Optional

import yaml

from .config import Config, Excludes
from .yamlload import Limits

SEVERITY_VALUES = ("error", "warning", "info", "off")
FAIL_ON = ("error", "warning", "info", "never")
KNOWN_KEYS = {"profile", "fail_on", "rules", "paths", "ocp_releases", "apis", "limits", "categories",
              "catalogsource_schema", "options", "exclude"}


class ConfigError(Exception):
    pass


def load_config(path: Optional[str], required: bool = False) -> Config:
    if path is None:
        return Config()
    if not os.path.exists(path):
        if required:
            raise ConfigError(f"config file {path} does not exist")
        return Config()
    try:
        with open(path, "rb") as fh:
            data = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot be read: {e.strerror}") from None
    except Exception as e:  # PyYAML's constructors raise KeyError, IndexError, ValueError... on a mistagged value
        raise ConfigError(f"{path}: not valid YAML: a value does not fit its tag ({type(e).__name__}: {e})") from None
    return parse_config(data, path)


def parse_config(data: Any, path: str = ".olm-check.yaml") -> Config:
    """``data`` (the YAML document of ``path``) as a ``Config``; ``ConfigError`` on the first
    mistake, the settings checked in this order."""
    from .rules import load_all

    load_all()
    cfg = Config(path=path)
    if data is None:
        return cfg
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must be a mapping of settings")
    _known_keys(data, path)
    _profile_and_fail_on(data, path, cfg)
    cfg.rules = _rule_map(data.get("rules") or {}, "rules", path)
    for key in ("paths", "ocp_releases"):
        if data.get(key) is not None and not isinstance(data[key], list):
            raise ConfigError(f"{path}: {key} must be a list")
    for key in ("limits", "options"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise ConfigError(f"{path}: {key} must be a mapping")
    for i, entry in enumerate(data.get("paths") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise ConfigError(f"{path}: paths[{i}] needs a 'path' glob and 'rules'")
        cfg.paths.append((entry["path"], _rule_map(entry.get("rules") or {}, f"paths[{i}].rules", path)))
    cfg.ocp_releases = _ocp_releases(data.get("ocp_releases") or [], path)
    apis = data.get("apis") or {}
    if not isinstance(apis, dict):
        raise ConfigError(f"{path}: apis must be a mapping with 'removed' and/or 'introduced' lists")
    _check_apis(apis, path)
    cfg.apis = {k: list(v) for k, v in apis.items() if v is not None}  # `removed:` left empty is no entry
    cfg.limits = _limits(data.get("limits") or {}, path)
    _the_rest(data, path, cfg)
    return cfg


def _known_keys(data: dict[Any, Any], path: str) -> None:
    from .suggest import did_you_mean

    unknown = set(data) - KNOWN_KEYS
    if unknown:
        hints = "".join(did_you_mean(str(k), KNOWN_KEYS, n=1) for k in sorted(map(str, unknown)))
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(sorted(map(str, unknown)))}{hints}; known: {', '.join(sorted(KNOWN_KEYS))}")


def _profile_and_fail_on(data: dict[Any, Any], path: str, cfg: Config) -> None:
    from .rules import PROFILES
    from .suggest import did_you_mean

    if "profile" in data:
        if data["profile"] not in PROFILES:
            raise ConfigError(f"{path}: profile must be one of {', '.join(PROFILES)}{did_you_mean(str(data['profile']), PROFILES, n=1)}")
        cfg.profile = data["profile"]
    if "fail_on" in data:
        if data["fail_on"] not in FAIL_ON:
            raise ConfigError(f"{path}: fail_on must be one of {', '.join(FAIL_ON)}")
        cfg.fail_on = data["fail_on"]


def _rule_map(m: Any, where: str, path: str) -> dict[str, str]:
    """``rules:`` (or a ``paths[i].rules``): rule id -> error|warning|info|off (``false``: off)."""
    from .rules import RULES
    from .suggest import did_you_mean

    if not isinstance(m, dict):
        raise ConfigError(f"{path}: {where} must map rule ids to error|warning|info|off")
    out = {}
    for k, v in m.items():
        if v is False:
            v = "off"
        if k not in RULES:
            raise ConfigError(f"{path}: {where}: unknown rule id '{k}'{did_you_mean(str(k), RULES)} (see `olm-check rules`)")
        if v not in SEVERITY_VALUES:
            raise ConfigError(f"{path}: {where}: {k} must be one of {', '.join(SEVERITY_VALUES)}")
        out[k] = v
    return out


def _ocp_releases(entries: list[Any], path: str) -> list[dict[str, Any]]:
    out = []
    for i, r in enumerate(entries):
        if not isinstance(r, dict) or "ocp" not in r or "kube" not in r:
            raise ConfigError(f"{path}: ocp_releases[{i}] needs 'ocp' and 'kube', e.g. {{ocp: \"4.24\", kube: \"1.37\", ga: false}}")
        for k in ("ocp", "kube"):
            if not isinstance(r[k], str) or not _is_minor(r[k]):
                raise ConfigError(f"{path}: ocp_releases[{i}].{k} must be a quoted 'major.minor' string such as \"4.24\" "
                                  "(unquoted 4.20 reads as 4.2)")
        if not isinstance(r.get("ga", True), bool):
            raise ConfigError(f"{path}: ocp_releases[{i}].ga must be true or false")
        out.append({"ocp": r["ocp"], "kube": r["kube"], "ga": r.get("ga", True)})
    return out


def _limits(lim: Any, path: str) -> Limits:
    if not isinstance(lim, dict):
        raise ConfigError(f"{path}: limits must be a mapping")
    for k, v in lim.items():
        if k not in LIMIT_MAX or not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ConfigError(f"{path}: limits.{k}: expected max_file_mib, max_depth or max_alias_nodes with a positive whole number")
        if v > LIMIT_MAX[k]:
            raise ConfigError(f"{path}: limits.{k}: at most {LIMIT_MAX[k]:,} (the limits protect olm-check itself)")
    return Limits(
        max_file_bytes=int(lim.get("max_file_mib", Limits.max_file_bytes // 1048576)) * 1048576,
        max_depth=int(lim.get("max_depth", Limits.max_depth)),
        max_alias_nodes=int(lim.get("max_alias_nodes", Limits.max_alias_nodes)),
    )


def _the_rest(data: dict[Any, Any], path: str, cfg: Config) -> None:
    """categories, catalogsource_schema, options, exclude."""
    if "categories" in data:
        if not isinstance(data["categories"], list) or not all(isinstance(c, str) for c in data["categories"]):
            raise ConfigError(f"{path}: categories must be a list of strings")
        cfg.categories = data["categories"]
    if "catalogsource_schema" in data:
        if data["catalogsource_schema"] not in ("legacy", "proposed"):
            raise ConfigError(f"{path}: catalogsource_schema must be 'legacy' or 'proposed'")
        cfg.catalogsource_schema = data["catalogsource_schema"]
    opts = data.get("options") or {}
    if not isinstance(opts, dict):
        raise ConfigError(f"{path}: options must be a mapping of rule id to its options")
    cfg.options = opts
    if data.get("exclude") is not None:
        ex = data["exclude"]
        if isinstance(ex, str):
            ex = [ex]
        if not isinstance(ex, list) or not all(isinstance(x, str) for x in ex):
            raise ConfigError(f"{path}: exclude must be a list of gitignore-style patterns, e.g. [\"deploy/legacy/\", \"*.tmpl.yaml\"]")
        cfg.exclude = Excludes(ex)


# upper bounds of the limits: past them the limits no longer protect anything (a file read
# whole into memory, nesting deep enough to exhaust Python's recursion in rules)
LIMIT_MAX = {"max_file_mib": 1024, "max_depth": 500, "max_alias_nodes": 100_000_000}


def _check_apis(apis: dict[Any, Any], path: str) -> None:
    """Extra API table entries, in checker/data/apis.yaml's format."""
    for key in apis:
        if key not in ("removed", "introduced"):
            raise ConfigError(f"{path}: apis: unknown key '{key}'; expected 'removed' and/or 'introduced'")
    example = {"removed": '{group: policy, version: v1beta1, kinds: [PodDisruptionBudget], deprecated: "1.21", removed: "1.25", use: policy/v1}',
               "introduced": '{group: apps, version: v1, kinds: [Deployment], since: "1.9"}'}
    for key, when in (("removed", ("deprecated", "removed")), ("introduced", ("since",))):
        entries = apis.get(key)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise ConfigError(f"{path}: apis.{key} must be a list of entries such as {example[key]}")
        for i, e in enumerate(entries):
            where = f"{path}: apis.{key}[{i}]"
            if not isinstance(e, dict) or not isinstance(e.get("group", None), str) or not isinstance(e.get("version"), str) \
                    or not e["version"] or not isinstance(e.get("kinds"), list) or not e["kinds"] \
                    or not all(isinstance(k, str) and k for k in e["kinds"]):
                raise ConfigError(f"{where} needs group (a string, \"\" for the core group), version and kinds (a list), "
                                  f"e.g. {example[key]}")
            if not any(e.get(w) is not None for w in when):
                raise ConfigError(f"{where} needs {' or '.join(when)}, e.g. {example[key]}")
            for w in when:
                v = e.get(w)
                if v is not None and not (isinstance(v, str) and _is_minor(v)):
                    raise ConfigError(f"{where}.{w} must be a quoted Kubernetes 'major.minor' string such as \"1.25\"")
            if "use" in e and not isinstance(e["use"], str):
                raise ConfigError(f"{where}.use must be a string (the replacement)")


def _is_minor(s: str) -> bool:
    parts = s.split(".")
    return len(parts) == 2 and all(p.isdigit() for p in parts)
