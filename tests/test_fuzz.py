"""Fuzzing (hypothesis): the loader and the whole check never raise and never report an
internal error, whatever the input.

* ``parse`` / ``decode``: random YAML-ish text and random bytes through ``yamlload.parse`` /
  ``decode`` and the file reader (``load.Reader``, which is how every file is read).
* ``files``: fixture files (fixtures/**) with random text and
  structure mutations, read by the reader.
* ``check``: a fixture case (the good bundle, or any
  fixtures/rules/*/* case, bundles and catalog trees alike) copied to a temporary directory,
  one or two of its files mutated, checked with ``checker.api.check`` under a random profile
  and rendered in every format.
* ``config``: a random ``.olm-check.yaml``: a usage error or a normal run, nothing else.

The suite runs a modest number of examples (``OLM_CHECK_FUZZ_EXAMPLES``, default 20 per
property); ``scripts/fuzz.py`` runs them for as long as asked.
"""
import json
import os
import shutil
import tempfile

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from checker.load import Reader
from checker.nodes import Mapping, Node, Scalar, Sequence, to_py, walk
from checker.yamlload import Limits, decode, parse

from conftest import FIXTURES

EXAMPLES = int(os.environ.get("OLM_CHECK_FUZZ_EXAMPLES", "20"))
# CI draws the same examples on every run (derandomize); OLM_CHECK_FUZZ_SEED=random draws fresh
# ones, and scripts/fuzz.py runs random rounds for as long as asked.
RANDOM = os.environ.get("OLM_CHECK_FUZZ_SEED", "") == "random"
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not RANDOM,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
RULE_IDS = {"yaml-syntax", "yaml-duplicate-key", "yaml-limits"}
STATS = {"cases": 0}  # examples run, for scripts/fuzz.py

# -- hostile pieces of text ---------------------------------------------------------------------

HOSTILE_SCALARS = [
    "", "~", "null", "[]", "{}", "- x", "42", "-1", "4.20", "1e999", ".nan", "0x1F", "0o17", "1_000", "1:20",
    "true", "yes", "off", "=", "'", '"', "'='", "&a", "*a", "*undefined", "&a [*a]", "!!python/object:os.system x",
    "!!binary AAAA", "!!bool maybe", "!!int ''", "!!float x", "!!null x", "!!str", "!custom x", "? x", "<<: *a",
    "|", ">-", "|+\n  a\n", "\t", "\ufeff", "é", "🙂", "\u202e", "a: b: c", "{a: 1, a: 2}", "[1, [2, [3]]]",
    "%25", "%0A", "a,b:c", "${{ github.token }}", "@everyone", "<script>alert(1)</script>", "`x`", "```",
    "https://example.com/x", "v4.12", "=v4.10", "v4.6-v4.8", "v4.5,v4.6", "4.12", "4.14-4.17", "v3.6-v4.8",
    "v4.12-v4.10", "v4", "v4.x", "v99.99", "\"v4.12\" # c", "1.0.0", "1.0.0-rc.1+build", "01.02.03",
    ">=1.0.0 <2.0.0", ">=1.0.0 <=2.0.0 || 3.x", "quay.io/x/y@sha256:" + "a" * 64, "quay.io/x/y:tag", "::::",
    "registry+v1", "k8s+v1", "plain+v0", "AllNamespaces", "ClusterServiceVersion", "CustomResourceDefinition",
    "apiextensions.k8s.io/v1beta1", "policy/v1beta1", "operators.coreos.com/v1alpha1", "x" * 3000,
    '{"olm.maxOpenShiftVersion": 4.8}', '[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}]', "[{]",
    '[{"apiVersion": "example.com/v1", "kind": "Widget"}]', "data:image/png;base64,AAAA",
]
TOKENS = HOSTILE_SCALARS + [
    "\n", "\n", "\n", " ", "  ", "    ", ": ", ":", "- ", "-", "---\n", "...\n", "#", "# olm-check: ignore\n",
    "{", "}", "[", "]", ",", "key", "spec", "metadata", "name", "annotations", "openAPIV3Schema", "enum",
    "apiVersion: v1\n", "kind: ConfigMap\n", "&x ", "*x", "!!map ", "!!seq ", "!!str ", "%YAML 1.1\n",
    "%TAG ! tag:x,2000:\n", "\r\n", "\x00", "\x07", "\x85", "\u2028",
]


def _draw_scalar(data):
    return data.draw(st.one_of(st.sampled_from(HOSTILE_SCALARS), st.text(max_size=20)), label="scalar")


def _line_bounds(text, i):
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return start, len(text) if end < 0 else end


def mutate_text(data, text: str) -> str:
    """One random text-level mutation of ``text``."""
    op = data.draw(st.sampled_from(["insert", "delete", "dup-line", "value", "truncate", "indent", "swap", "key"]), label="op")
    n = len(text)
    i = data.draw(st.integers(0, n), label="at")
    if op == "insert":
        return text[:i] + data.draw(st.sampled_from(TOKENS) | st.text(max_size=8), label="token") + text[i:]
    if op == "delete":
        j = data.draw(st.integers(i, min(n, i + 200)), label="to")
        return text[:i] + text[j:]
    if op == "truncate":
        return text[:i]
    s, e = _line_bounds(text, min(i, max(0, n - 1)))
    line = text[s:e]
    if op == "dup-line":
        return text[:e] + "\n" + line + text[e:]
    if op == "value":
        c = line.find(": ")
        if c < 0:
            c = line.find("- ")
        if c < 0:
            return text[:s] + _draw_scalar(data) + text[e:]
        return text[:s] + line[: c + 2] + _draw_scalar(data) + text[e:]
    if op == "indent":
        d = data.draw(st.sampled_from(["", " ", "  ", "   ", "\t", "-"]), label="indent")
        strip = data.draw(st.booleans(), label="strip")
        return text[:s] + (line.lstrip() if strip else d + line) + text[e:]
    if op == "key":
        c = line.find(":")
        if c < 0:
            return text
        return text[:s] + line[:c].upper() + line[c:] + text[e:]
    # swap with the next line
    nxt_s, nxt_e = _line_bounds(text, min(e + 1, n))
    if nxt_s <= e:
        return text
    return text[:s] + text[nxt_s:nxt_e] + text[e:nxt_s] + line + text[nxt_e:]


hostile_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 70), 2 ** 70), st.floats(allow_nan=True),
              st.sampled_from(HOSTILE_SCALARS), st.text(max_size=15)),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.one_of(st.sampled_from(["name", "version", "kind", "spec", "type", "value", "metadata",
                                                 "annotations", "served", "storage", "deployments"]),
                                st.text(max_size=8), st.integers(-3, 3), st.none()), inner, max_size=3),
    max_leaves=6)


def _paths(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, path + (i,))


def _expanded_size(obj, budget: int) -> int:
    """Nodes of ``obj`` counted as expanded (a value shared through YAML aliases counts each
    time), stopping past ``budget``: an alias bomb loads small but expands to billions."""
    n, stack = 0, [obj]
    while stack and n <= budget:
        o = stack.pop()
        n += 1
        if isinstance(o, dict):
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)
    return n


def mutate_structure(data, text: str):
    """One random structural mutation (replace, delete, duplicate or wrap a value anywhere in
    the documents), or None when the text is not plain YAML to begin with (or expands through
    aliases to more than the mutator can walk: the loader's own limits are fuzzed as text)."""
    try:
        docs = list(yaml.safe_load_all(text))
    except Exception:  # noqa: BLE001 - PyYAML's own constructors raise KeyError, ValueError... (!!bool maybe)
        return None
    if not docs or any(_expanded_size(doc, 20_000) > 20_000 for doc in docs):
        return None
    d = data.draw(st.integers(0, len(docs) - 1), label="doc")
    paths = list(_paths(docs[d]))
    path = data.draw(st.sampled_from(paths), label="path")
    op = data.draw(st.sampled_from(["replace", "replace", "delete", "wrap", "stringify", "empty"]), label="sop")

    def parent_of(root, p):
        node = root
        for k in p[:-1]:
            node = node[k]
        return node

    if not path:
        docs[d] = data.draw(hostile_values, label="value") if op != "delete" else None
    else:
        parent = parent_of(docs[d], path)
        k = path[-1]
        cur = parent[k]
        if op == "replace":
            parent[k] = data.draw(hostile_values, label="value")
        elif op == "delete":
            del parent[k]
        elif op == "wrap":
            parent[k] = [cur]
        elif op == "stringify":
            parent[k] = json.dumps(cur, default=str)
        else:
            parent[k] = type(cur)() if isinstance(cur, (dict, list, str)) else None
    try:
        return yaml.safe_dump_all(docs, sort_keys=False, allow_unicode=True)
    except (yaml.YAMLError, ValueError, TypeError):
        return None


def mutate(data, text: str) -> str:
    if data.draw(st.booleans(), label="structural"):
        out = mutate_structure(data, text)
        if out is not None:
            text = out
    for _ in range(data.draw(st.integers(0, 2), label="text-mutations")):
        text = mutate_text(data, text)
    return text


# -- assertions ---------------------------------------------------------------------------------

def check_parse_result(docs, problems):
    for p in problems:
        assert p.rule in RULE_IDS, p.rule
        assert p.line >= 1 and p.column >= 1
        assert isinstance(p.message, str) and p.message
    for d in docs:
        assert d is None or isinstance(d, Node)
        to_py(d)
        for _path, n in walk(d):
            assert n.line >= 1 and n.col >= 1
            if isinstance(n, Mapping):
                for k, _v in n.items():
                    assert isinstance(k, Node)
            elif isinstance(n, Sequence):
                len(n)
            elif isinstance(n, Scalar):
                n.type_name()


# -- the loader -----------------------------------------------------------------------------------

yamlish = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)), max_size=60).map("".join)


def prop_parse(text, depth, aliases, skip):
    STATS["cases"] += 1
    docs, problems = parse(text, Limits(max_depth=depth, max_alias_nodes=aliases),
                           frozenset({"openAPIV3Schema", "spec"}) if skip else frozenset())
    check_parse_result(docs, problems)


def prop_decode(data):
    STATS["cases"] += 1
    text, problem = decode(data)
    assert (text is None) != (problem is None)
    if text is not None:
        check_parse_result(*parse(text))


def _fixture_files():
    out = []
    for dirpath, dirs, files in os.walk(FIXTURES):
        dirs.sort()
        for f in sorted(files):
            if f != "expect.yaml" and f.endswith((".yaml", ".yml", ".json")):
                out.append(os.path.join(dirpath, f))
    return out


FIXTURE_FILES = _fixture_files()


def _read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        return fh.read()


def prop_files(data):
    STATS["cases"] += 1
    src = data.draw(st.sampled_from(FIXTURE_FILES), label="file")
    text = mutate(data, _read(src))
    with tempfile.TemporaryDirectory(prefix="olm-check-fuzz-") as d:
        p = os.path.join(d, os.path.basename(src))
        with open(p, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogateescape"))
        for skip in (True, False):
            sf = Reader(d, d, Limits(max_depth=64)).yaml_file(p, skip=skip)
            check_parse_result(sf.documents, sf.problems)


# -- the whole check ------------------------------------------------------------------------------

def _case_dirs():
    out = [os.path.join(FIXTURES, "bundles", "good")]
    rules = os.path.join(FIXTURES, "rules")
    for rid in sorted(os.listdir(rules)):
        for case in sorted(os.listdir(os.path.join(rules, rid))):
            if case.startswith(("bad", "good")):
                out.append(os.path.join(rules, rid, case))
    return out


CASE_DIRS = _case_dirs()
GOOD_FIRST = [CASE_DIRS[0]] * 10 + CASE_DIRS  # the good bundle: a complete CSV to break


def _case_files(case):
    out = []
    for dirpath, dirs, files in os.walk(case):
        dirs.sort()
        for f in sorted(files):
            # (.olm-check.yaml: a broken config is a usage error by design; prop_config fuzzes it)
            if f not in ("expect.yaml", ".olm-check.yaml") and (f.endswith((".yaml", ".yml", ".json")) or "Dockerfile" in f):
                out.append(os.path.relpath(os.path.join(dirpath, f), case))
    return out


def run_mutated_case(data, keep_failures=None):
    """Copy a drawn fixture case, mutate one or two of its files, check it; returns the result.
    Raises AssertionError on an exception or an internal error (the case is copied to
    ``keep_failures`` first when given)."""
    from checker.api import check
    from checker.report import render
    from checker.report.markdown import summary
    from checker.rules import PROFILES, RULES

    case = data.draw(st.sampled_from(GOOD_FIRST), label="case")
    files = _case_files(case)
    assume(files)
    exp = {}
    if os.path.exists(os.path.join(case, "expect.yaml")):
        with open(os.path.join(case, "expect.yaml"), encoding="utf-8") as fh:
            exp = yaml.safe_load(fh) or {}
    tmp = tempfile.mkdtemp(prefix="olm-check-fuzz-")
    cwd = os.getcwd()
    try:
        root = os.path.join(tmp, "case")
        shutil.copytree(case, root, symlinks=True)
        for _ in range(data.draw(st.integers(1, 2), label="files")):
            rel = data.draw(st.sampled_from(files), label="file")
            p = os.path.join(root, rel)
            if not os.path.isfile(p) or os.path.islink(p):
                continue
            text = mutate(data, _read(p))
            with open(p, "wb") as fh:
                fh.write(text.encode("utf-8", "surrogateescape"))
        profile = data.draw(st.sampled_from(PROFILES), label="profile")
        target = data.draw(st.sampled_from([None, None, ["4.12"], ["4.16", "4.20"], ["4.99"]]), label="ocp")
        os.chdir(root)
        try:
            res = check([exp.get("check", ".")], profile=profile, target=target)
        except Exception as e:
            _keep(root, keep_failures)
            raise AssertionError(f"check raised on a mutation of {case}: {type(e).__name__}: {e}") from e
        internal = [f.message for f in res.findings if f.rule == "internal-error"]
        if internal:
            _keep(root, keep_failures)
        assert not internal, f"{case}: {internal}"
        for f in res.findings:
            assert f.severity in ("error", "warning", "info") and f.line >= 1 and f.column >= 1
            assert isinstance(f.message, str) and f.message and "Traceback" not in f.message
        json.dumps(res.report)
        for fmt in ("text", "json", "sarif", "github"):
            render(fmt, res.report, res.findings, RULES)
        summary(res.report, res.findings)
        return res
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)


def _keep(root, dest):
    if dest:
        os.makedirs(dest, exist_ok=True)
        shutil.copytree(root, tempfile.mkdtemp(prefix="case-", dir=dest), symlinks=True, dirs_exist_ok=True)


CONFIG_KEYS = ["profile", "fail_on", "rules", "paths", "ocp_releases", "apis", "limits", "categories",
               "catalogsource_schema", "options"]
config_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 10 ** 12), st.sampled_from(
        ["community", "minimal", "error", "off", "warning", "4.24", "1.37", "yaml-syntax", "removed-api", "**", "*",
         "removed", "introduced", "max_depth", "max_file_mib", "max_alias_nodes", "ocp", "kube", "ga", "path",
         "group", "version", "kinds", "since", "deprecated", "use", "legacy", "proposed", ""]), st.text(max_size=6)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["rules", "path", "ocp", "kube", "ga", "removed", "introduced", "group", "version", "kinds",
                         "since", "deprecated", "use", "max_depth", "max_file_mib", "max_alias_nodes",
                         "yaml-syntax", "removed-api", "csv-categories"]), inner, max_size=4),
    max_leaves=10)


def prop_config(data):
    """A random .olm-check.yaml: a usage error (CheckError) or a normal run, nothing else."""
    from checker.api import CheckError, check

    STATS["cases"] += 1
    config = data.draw(st.dictionaries(st.sampled_from(CONFIG_KEYS), config_values, max_size=4), label="config")
    text = yaml.safe_dump(config, allow_unicode=True)
    for _ in range(data.draw(st.integers(0, 2), label="text-mutations")):
        text = mutate_text(data, text)
    tmp = tempfile.mkdtemp(prefix="olm-check-fuzz-")
    cwd = os.getcwd()
    try:
        shutil.copytree(CASE_DIRS[0], os.path.join(tmp, "b"))
        with open(os.path.join(tmp, ".olm-check.yaml"), "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chdir(tmp)
        try:
            res = check(["b"])
        except CheckError as e:
            assert str(e) and ".olm-check.yaml" in str(e)
            return
        assert not [f.message for f in res.findings if f.rule == "internal-error"]
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)


KEEP = {"dir": None}  # scripts/fuzz.py --keep: where cases that broke the check are copied


def prop_check(data):
    STATS["cases"] += 1
    run_mutated_case(data, KEEP["dir"])


# name -> (property, its strategies); scripts/fuzz.py runs the same with more examples
PROPERTIES = {
    "parse": (prop_parse, dict(text=yamlish, depth=st.sampled_from([8, 32, 128]),
                               aliases=st.sampled_from([10, 1000, 100_000]), skip=st.booleans())),
    "decode": (prop_decode, dict(data=st.binary(max_size=300))),
    "files": (prop_files, dict(data=st.data())),
    "check": (prop_check, dict(data=st.data())),
    "config": (prop_config, dict(data=st.data())),
}

test_parse_never_raises_on_yamlish_text = FUZZ(given(**PROPERTIES["parse"][1])(prop_parse))
test_decode_never_raises_on_bytes = FUZZ(given(**PROPERTIES["decode"][1])(prop_decode))
test_mutated_fixture_files_load = FUZZ(given(**PROPERTIES["files"][1])(prop_files))
test_check_survives_mutated_fixtures = FUZZ(given(**PROPERTIES["check"][1])(prop_check))
test_config_file_is_a_usage_error_or_a_run = FUZZ(given(**PROPERTIES["config"][1])(prop_config))
