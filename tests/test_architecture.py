"""The package's shape, from its source (the AST of every module): one direction, no cycles.

* No import cycles among checker modules, counting the imports inside functions too (a
  late import only hides a cycle; it does not remove it).
* Rules are pure functions of the model: checker/rules/* import nothing of the report, the
  GitHub Action, the runner (workers, cache, snapshots, shards), change lists, discovery or
  the command line, probe no file system, and read no ``ctx.repo``.
* Below the rules: ``checker.context`` (the rules' ``Context``) imports the model, the
  configuration, the version tables and the gates' data, never the engine, the rules or what
  is above them; ``checker.config`` is plain data (reading the file is ``checker.config_file``'s);
  ``checker.upstream`` (ports of upstream code) imports nothing of the checker.
"""
from __future__ import annotations

import ast
import os

import checker

PKG_DIR = os.path.dirname(checker.__file__)
FORBIDDEN_IN_RULES = ("checker.report", "checker.action", "checker.runner", "checker.changes",
                      "checker.discover", "checker.cli")


def _modules() -> dict:
    """module name -> file, for every module of the checker package."""
    out = {}
    root = os.path.dirname(PKG_DIR)
    for dirpath, dirnames, files in os.walk(PKG_DIR):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                if name.endswith(".__init__"):
                    name = name[: -len(".__init__")]
                out[name] = path
    return out


def _imports(name: str, path: str, modules: dict) -> set:
    """The checker modules ``name`` imports (module level or inside functions)."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    package = name.split(".") if path.endswith("__init__.py") else name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from . import engine` names a module; `from .rules import check` a name in one
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in modules else mod for a in node.names]
        for t in targets:
            while t not in modules and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in modules and t != name and t.split(".")[0] == "checker":
                out.add(t)
    return out


def _graph() -> dict:
    modules = _modules()
    return {m: _imports(m, p, modules) for m, p in modules.items()}


def _cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_import_graph_is_read_from_the_source():
    graph = _graph()
    # a few edges every layout of the package has: the check would be empty otherwise
    assert "checker.engine" in graph["checker.runner.tasks"]
    assert "checker.rules" in graph["checker.rules.plain.plain_bundle_apis"]
    assert "checker.engine" in graph["checker.runner.cache"]  # an import inside a function


def test_no_import_cycles_among_checker_modules():
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_rules_import_nothing_of_the_runner_report_action_changes_discovery_or_cli():
    graph = _graph()
    rules = [m for m in graph if m == "checker.rules" or m.startswith("checker.rules.")]
    assert len(rules) > 10
    bad = sorted((m, t) for m in rules for t in graph[m]
                 if any(t == f or t.startswith(f + ".") for f in FORBIDDEN_IN_RULES))
    assert bad == [], "rule modules importing what they must not: " + ", ".join(f"{m} -> {t}" for m, t in bad)


def test_the_core_does_not_import_the_runner():
    graph = _graph()
    core = ("checker.engine", "checker.publication", "checker.versions_analysis", "checker.facts", "checker.model")
    bad = sorted((m, t) for m in core for t in graph[m] if t == "checker.runner" or t.startswith("checker.runner."))
    assert bad == []


def _third_party_imports() -> dict:
    """top-level import name -> the checker modules importing it, for every import of the
    package that is neither the standard library nor checker itself."""
    import sys

    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    out: dict = {}
    for name, path in _modules().items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for t in tops:
                if t not in stdlib and t != "checker":
                    out.setdefault(t, set()).add(name)
    return out


def _normal(dist: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", dist).lower()


def test_declared_dependencies_are_the_imported_ones():
    """pyproject's dependencies (and the action extra, for checker/action) are exactly the
    distributions the package imports: nothing declared and unused, nothing used undeclared."""
    import re
    import sys
    from importlib.metadata import packages_distributions

    if sys.version_info < (3, 11):  # tomllib
        import pytest

        pytest.skip("reads pyproject.toml with tomllib (Python 3.11+)")
    import tomllib

    with open(os.path.join(os.path.dirname(PKG_DIR), "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)["project"]

    def names(specs) -> set:
        return {_normal(re.split(r"[<>=!~;\[ ]", s, 1)[0]) for s in specs}

    declared = names(project["dependencies"])
    action = names(project["optional-dependencies"]["action"])
    dists = packages_distributions()
    core, extra = set(), set()
    for top, users in _third_party_imports().items():
        got = dists.get(top)
        assert got, f"{top} (imported by {sorted(users)}) is installed by no distribution"
        dist = _normal(got[0])
        if all(u.startswith("checker.action") for u in users):
            extra.add(dist)
        else:
            core.add(dist)
    assert core == declared, f"imported {sorted(core)}, declared {sorted(declared)}"
    assert extra - declared == action, f"the action imports {sorted(extra)}, its extra declares {sorted(action)}"


# what a rule may not call: the loader reads the tree, rules read the model it built
_FILE_SYSTEM = {("os", "listdir"), ("os", "scandir"), ("os", "stat"), ("os", "lstat"), ("os", "readlink"),
                ("os", "walk"), ("path", "isdir"), ("path", "isfile"), ("path", "exists"), ("path", "islink"),
                ("path", "getsize"), ("path", "lexists")}


def _file_system_calls(path: str) -> list:
    """(line, call) of the file-system probes in a module (``os.path.isdir(...)`` and the like)."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Name, ast.Attribute)):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else node.func.value.attr
            if (owner, node.func.attr) in _FILE_SYSTEM:
                out.append((node.lineno, f"{owner}.{node.func.attr}"))
    return out


def test_rules_do_not_probe_the_file_system():
    """Rules are pure functions of the model: whether a bundle has manifests/ or metadata/ is a
    fact the loader records (``Bundle.has_manifests_dir``), not something a rule looks up. (Data
    tables of checker/data/ are read with open(), which this does not forbid.)"""
    bad = {name: calls for name, path in _modules().items()
           if name.startswith("checker.rules") for calls in [_file_system_calls(path)] if calls}
    assert bad == {}, f"rules probing the file system: {bad}"


def test_the_file_system_probe_finder_finds_one(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import os\n\ndef f(b):\n    return os.path.isdir(b.path)\n")
    assert _file_system_calls(str(p)) == [(4, "path.isdir")]


def _context_repo_reads(path: str) -> list:
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "repo" and isinstance(n.value, ast.Name) and n.value.id == "ctx"]


def test_bundle_rules_do_not_reach_into_the_repository():
    """A bundle is checked with its operator (``ctx.operator``), never with the whole repository:
    no rule reads ``ctx.repo`` (repository-scope rules get their slice as an argument)."""
    bad = {name: lines for name, path in _modules().items()
           if name.startswith("checker.rules") for lines in [_context_repo_reads(path)] if lines}
    assert bad == {}, f"rules reading ctx.repo: {bad}"


# What a rule module may import: the registry, the rules' shared helpers, the ports of upstream
# code, and the core's data types (issue 28: one home per rule, no rule-to-rule imports).
RULE_MAY_IMPORT = ("checker.rules", "checker.rules.lib", "checker.upstream", "checker.context", "checker.model",
                   "checker.nodes", "checker.versions", "checker.finding", "checker.facts", "checker.gates",
                   # what a catalog repository is (which operators, their ci.yaml) and its upgrade graphs
                   "checker.catalogs", "checker.upgrade_graph")


def _rule_modules(graph: dict) -> list:
    from checker.rules import CATEGORIES

    return sorted(m for m in graph if m.count(".") >= 3 and m.split(".")[1] == "rules" and m.split(".")[2] in CATEGORIES)


def test_a_rule_module_imports_no_other_rule_module():
    graph = _graph()
    mods = _rule_modules(graph)
    bad = sorted((m, t) for m in mods for t in graph[m]
                 if not any(t == a or t.startswith(a + ".") for a in RULE_MAY_IMPORT)
                 or (t.startswith("checker.rules.") and not t.startswith("checker.rules.lib")))
    assert bad == [], "rule modules importing what they must not: " + ", ".join(f"{m} -> {t}" for m, t in bad)


def test_every_rule_lives_in_a_file_named_after_it():
    """rules/<category>/<id>.py, its category the rule's: a rule is found by its id."""
    import inspect

    from checker.rules import CHECKS, RULES, load_all

    load_all()
    top = sorted(f for f in os.listdir(os.path.join(PKG_DIR, "rules")) if f.endswith(".py") and f != "__init__.py")
    assert top == [], f"rule modules outside rules/<category>/: {top}"
    for r in RULES.values():
        path = os.path.join(PKG_DIR, "rules", r.category, r.id.replace("-", "_") + ".py")
        assert os.path.isfile(path), f"{r.id}: no {os.path.relpath(path, PKG_DIR)}"
    for scope, fns in CHECKS.items():
        for fn in fns:
            parts = inspect.getmodule(fn).__name__.split(".")
            assert parts[:2] == ["checker", "rules"] and len(parts) == 4 and parts[3].replace("_", "-") in RULES, \
                f"{scope} check {fn.__name__} of {'.'.join(parts)} is not in a rule's own file"


def test_the_rules_shared_helpers_import_no_rule_module():
    graph = _graph()
    lib = [m for m in graph if m == "checker.rules.lib" or m.startswith("checker.rules.lib.")]
    assert len(lib) >= 5
    bad = sorted((m, t) for m in lib for t in graph[m]
                 if t == "checker.rules" or (t.startswith("checker.rules.") and not t.startswith("checker.rules.lib")))
    assert bad == [], ", ".join(f"{m} -> {t}" for m, t in bad)


def _reach(graph: dict, start: str) -> set:
    """Every checker module ``start`` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for t in graph[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


ABOVE_THE_RULES = ("checker.engine", "checker.rules", "checker.report", "checker.action", "checker.runner",
                   "checker.cli", "checker.api", "checker.discover", "checker.changes", "checker.config_file")


def _under(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


# the one known edge from the data types up to the presentation (``Finding.to_json`` asks
# ``report.links`` for a rule's help URL); issue 28's output side removes it
KNOWN_UPWARD = {("checker.finding", "checker.report.links")}


def _graph_below() -> dict:
    return {m: {t for t in ts if (m, t) not in KNOWN_UPWARD} for m, ts in _graph().items()}


def test_the_context_sits_below_the_rules():
    graph = _graph_below()
    assert graph["checker.context"] == {"checker.config", "checker.gates", "checker.model", "checker.versions"}
    bad = sorted(m for m in _reach(graph, "checker.context") if _under(m, ABOVE_THE_RULES))
    assert bad == [], f"checker.context reaches {bad}"
    # the engine and the runner take it from there
    assert "checker.context" in graph["checker.engine"]
    assert "checker.context" in graph["checker.runner.tasks"]


def test_the_configuration_is_plain_data():
    """checker.config: the Config dataclass and its queries; it reads no file (no ``open``, no
    YAML) and reaches nothing above it. Reading and validating is checker.config_file's."""
    graph = _graph_below()
    bad = sorted(m for m in _reach(graph, "checker.config") if _under(m, ABOVE_THE_RULES))
    assert bad == [], f"checker.config reaches {bad}"
    path = _modules()["checker.config"]
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    opens = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "open"]
    yaml = [n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            and any((getattr(n, "module", None) or a.name).split(".")[0] == "yaml" for a in n.names)]
    assert opens == [] and yaml == [], f"checker/config.py reads files: open() at {opens}, yaml at {yaml}"
    assert "checker.config" in graph["checker.config_file"]


def test_upstream_ports_import_nothing_of_the_checker():
    graph = _graph()
    ports = [m for m in graph if _under(m, ("checker.upstream",))]
    assert "checker.upstream.blangsemver" in ports
    bad = sorted((m, t) for m in ports for t in graph[m])
    assert bad == [], f"upstream ports importing the checker: {bad}"


def test_the_upstream_ports_cite_their_source():
    for name, path in _modules().items():
        if _under(name, ("checker.upstream",)) and name != "checker.upstream":
            with open(path, encoding="utf-8") as fh:
                doc = ast.get_docstring(ast.parse(fh.read(), path)) or ""
            assert "https://github.com/" in doc, f"{name} names no upstream source file in its docstring"


def test_the_context_is_frozen():
    import dataclasses

    import pytest

    from checker.config import Config
    from checker.context import Context

    ctx = Context(config=Config(), profile="certified")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.profile = "community"  # type: ignore[misc]
    other = dataclasses.replace(ctx, profile="community")
    assert (ctx.profile, other.profile) == ("certified", "community")
    assert other.ocp is ctx.ocp and other.apis is ctx.apis  # a copy does not load the tables again
