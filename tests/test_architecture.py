"""The package's shape, from its source (the AST of every module): one direction, no cycles.

* No import cycles among checker modules, counting the imports inside functions too (a
  late import only hides a cycle; it does not remove it).
* Rules are pure functions of the model: checker/rules/* import nothing of the report, the
  GitHub Action, the runner (workers, cache, snapshots, shards), change lists, discovery or
  the command line.
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
    assert "checker.rules" in graph["checker.rules.plain"]
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
