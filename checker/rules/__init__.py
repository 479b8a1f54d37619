"""The rule registry and the one contract every rule follows.

A rule is one file, ``checker/rules/<category>/<rule_id>.py``: its module docstring is the
explanation (what, why OLM or the catalog cares, who refuses it, how to fix, a bad and a
good example), then::

    RULE = define("csv-missing", "The bundle has no ClusterServiceVersion, or several", __doc__,
                  category="format", refused_by=[refusal(...)])

    @RULE.check                      # or @RULE.check(scope="repo")
    def csv_missing(bundle: Bundle, ctx: Context):
        yield RULE.at(file, node, "what is wrong, in one sentence", detail="why, and the fix",
                      kind=...)  # a named observation, judged by verdicts.yaml

Rule code never picks a severity: a finding's ``kind`` is judged by the gates' data
(``checker/data/verdicts.yaml``, ``checker.gates``), per target. A rule module imports this
registry, ``rules.lib`` (what several rules share), ``checker.upstream`` and the core's data
types, never another rule module (``tests/test_architecture.py``).

Scopes, in the order they run (``checker.engine``, the core; ``checker.runner`` schedules it):

* ``bundle`` -- ``(bundle, ctx)`` for each checked bundle. Before any rule runs, the core
  has decided the bundle's publication and versions (``checker.publication``,
  ``checker.versions_analysis``: typed fields of ``bundle.versions``). ``ctx.operator``
  (``model.OperatorContext``, or None outside ``operators/<name>/``) is what the bundle's
  operator gives it, read before its rules run: ci.yaml, file-based catalogs, every bundle's
  light facts (``siblings``: package, channels, default channel, label, from annotations).
* ``repo`` -- ``(repo, ctx)``: catalog-wide rules (graphs, FBC, CatalogSources), on
  *slices* of the repository: once per operator (``engine.check_operator``), with
  ``repo.operators``, ``repo.facts``, ``repo.fbc`` and ``repo.catalogs`` holding that
  operator only; and once for what is outside operators/ (loose files, CatalogSources,
  bundles elsewhere; in a pull request also the operators the change list touches, whole,
  with ``repo.changes``). Bundles are gone by then: read ``repo.facts`` (``BundleFacts``,
  ``checker.facts``), never bundle manifests. A repo rule must therefore compare bundles of
  the same operator only (a ``--shard`` holds whole operators too), and identical findings
  from two slices are reported once.

Rules are pure: they read the model and the context and yield findings; they feed nothing
back (a fact the model lacks is computed in a stage before the rules, into a typed field).
They know nothing of workers, slices' scheduling or caches. A bundle's cached result
(``--cache``) is keyed by its files, its operator's ``ci.yaml``, ``catalogs/*/<operator>/``
files and bundles' ``metadata/``, the config and the tool
(``checker.runner.cache.Cache.operator_inputs``): a rule that makes a bundle's result
depend on anything else must be added there.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from ..finding import Finding, Fix
from ..nodes import Node

PROFILES = ("community", "certified", "marketplace", "operatorhub", "minimal")  # the targets (checker.gates.TARGETS)
CATEGORIES = ("format", "version", "csv", "plain", "catalogsource", "catalog")

# Who refuses or breaks what an error reports (rules.md: "Every error names who refuses it").
COMPONENTS = {
    "olm-install": "OLM's install code (the CSV or its InstallPlan fails)",
    "olm-upgrade": "OLM's upgrade code (the update is never offered, or is blocked)",
    "olm-resolver": "OLM's resolver (the bundle cannot be resolved or subscribed to)",
    "api-server": "the Kubernetes API server (the object is refused)",
    "opm": "opm (the bundle or catalog cannot be rendered, validated or served)",
    "catalog-ci": "the catalog repository's CI (a static check fails the pull request)",
    "certification": "Red Hat's certification pipeline (preflight, operator-pipelines)",
    "cluster-upgrade": "OpenShift cluster upgrades (blocked or breaking the operator)",
}


@dataclass(frozen=True)
class Refusal:
    """What refuses an error finding of a rule: a component (a ``COMPONENTS`` key), what it
    does, and where that is written (a link to the code or document)."""

    component: str
    what: str
    source: str

    def to_json(self) -> dict:
        return {"component": self.component, "what": self.what, "source": self.source}


def refusal(component: str, what: str, source: str) -> Refusal:
    if component not in COMPONENTS:
        raise ValueError(f"unknown refusing component {component!r}; one of {sorted(COMPONENTS)}")
    if not source or not what:
        raise ValueError("a refusal needs what is refused and its source")
    return Refusal(component, what, source)


@dataclass
class Rule:
    """A rule: its id (the contract), summary, explanation and category. Its severities are
    data (``checker/data/verdicts.yaml``: per finding kind, the gates that refuse or warn);
    ``headline()`` is the most severe of them for any target."""

    id: str
    summary: str
    explanation: str = ""
    category: str = "format"
    # rules whose finding at the same place (file, line, column) this rule's finding replaces,
    # when both are reported: the same problem, told more precisely (``engine.settle``)
    supersedes: tuple = ()
    # who refuses or breaks what an error finding of this rule reports (Refusal entries);
    # every rule that can report an error has at least one (tests/test_rules_doc.py)
    refused_by: tuple = ()

    def check(self, fn: Optional[Callable] = None, *, scope: str = "bundle") -> Callable:
        """``@RULE.check`` (or ``@RULE.check(scope="repo")``): register the function that yields
        this rule's findings (and, for a family, its siblings')."""
        if scope not in CHECKS:
            raise ValueError(scope)

        def deco(f: Callable) -> Callable:
            CHECKS[scope].append(f)
            return f

        return deco(fn) if fn is not None else deco

    def at(self, file, node: Optional[Node], message: str, *, detail: str, kind: str = "",
           fix: Optional[Fix] = None, ocp: Optional[Iterable] = None, line: Optional[int] = None,
           column: Optional[int] = None, gate_notes: Optional[dict] = None) -> Finding:
        """A finding of this rule at ``node`` of ``file`` (a SourceFile, or a display path):
        ``message`` says what is wrong in one sentence, ``detail`` why it matters and how to
        fix it; ``kind`` names which observation it is, for the gates' data to judge."""
        return finding(self.id, file, node, message, ocp=ocp, fix=fix, line=line, column=column,
                       detail=detail, kind=kind, gate_notes=gate_notes)

    def headline(self) -> str:
        """The most severe a finding of this rule can be for any target, from the gates' data."""
        rank = {"error": 3, "warning": 2, "info": 1, "off": 0}
        sevs = [t["severity"] for k in self.kinds() for t in k["targets"].values()]
        best = max(sevs, key=rank.__getitem__, default="off")
        return "info" if best == "off" else best

    def severity_in(self, profile: str) -> Optional[str]:
        """The most severe a finding of this rule can be for a target (``checker.gates``: its
        kinds' verdicts); None when the target reports none of it."""
        from ..gates import explain

        if profile == "minimal" and self.category != "format":
            return None
        kinds = explain(self.id)
        if not kinds:
            raise LookupError(f"{self.id}: no entry in checker/data/verdicts.yaml")
        rank = {"error": 3, "warning": 2, "info": 1, "off": 0}
        best = max((k["targets"][profile]["severity"] for k in kinds), key=rank.__getitem__)
        return None if best == "off" else best

    def kinds(self) -> list:
        """Per finding kind: its note and, per target, its severity and the gate deciding it."""
        from ..gates import explain

        out = explain(self.id)
        if self.category != "format":
            for k in out:
                k["targets"]["minimal"] = {"severity": "off", "gate": None, "source": None}
        return out

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "severity": self.headline(),
            "profiles": {p: (self.severity_in(p) or "off") for p in PROFILES},
            "kinds": self.kinds(),
            "category": self.category,
            "summary": self.summary,
            "explanation": self.explanation,
            "refused_by": [x.to_json() for x in self.refused_by],
        }


RULES: dict = {}
CHECKS: dict = {"bundle": [], "repo": []}


def define(id: str, summary: str, explanation: str = "", *, category: str = "format", supersedes: tuple = (),
           refused_by: Iterable = ()) -> Rule:
    """Register rule ``id`` (``explanation``: the rule module's ``__doc__``) and return it; its
    severities come from the gates' data, per finding kind."""
    if id in RULES:
        raise ValueError(f"rule id {id} defined twice")
    if category not in CATEGORIES:
        raise ValueError(f"{id}: unknown category {category!r}; one of {CATEGORIES}")
    refs = tuple(refused_by)
    for x in refs:
        if not isinstance(x, Refusal):
            raise TypeError(f"{id}: refused_by takes refusal(...) entries")
    r = Rule(id, summary, _dedent(explanation), category, tuple(supersedes), refs)
    RULES[id] = r
    return r


def finding(rule_id: str, file, node: Optional[Node], message: str, *,
            ocp: Optional[Iterable] = None, fix: Optional[Fix] = None, line: Optional[int] = None,
            column: Optional[int] = None, detail: str = "", kind: str = "",
            gate_notes: Optional[dict] = None) -> Finding:
    """A finding at ``node`` of ``file`` (a SourceFile, or a display path string).

    ``message`` is one sentence saying what is wrong (about 120 characters at most);
    ``detail`` says why it matters and how to fix it; ``kind`` names which observation of
    the rule it is (a slug; "" for the rule's default), for the gates' data to judge."""
    if rule_id not in RULES and rule_id not in _NOT_RULES:
        raise ValueError(f"finding of unknown rule id {rule_id!r}")
    path = file if isinstance(file, str) else file.rel
    ln = line if line is not None else (node.line if node is not None else 1)
    col = column if column is not None else (node.col if node is not None else 1)
    return Finding(rule=rule_id, message=message, path=path, line=ln, column=col,
                   ocp_versions=[getattr(r, "ocp", r) for r in (ocp or [])], fix=fix,
                   detail=detail, kind=kind, gate_notes=dict(gate_notes) if gate_notes else None)


_NOT_RULES = frozenset(("internal-error",))  # findings about olm-check itself, not of a rule


def default_detail(rule_id: str) -> str:
    """The why of a rule, for a finding whose message says what is wrong and how to put it
    right in one sentence: who refuses it (its first refusal), or its summary."""
    r = RULES.get(rule_id)
    if r is None:
        return ""
    if r.refused_by:
        x = r.refused_by[0]
        return f"Refused by {COMPONENTS[x.component]}: {x.what}."
    return r.summary.rstrip(".") + "."


def _dedent(s: str) -> str:
    import inspect

    return inspect.cleandoc(s) if s else ""


_LOADED = False


def load_all() -> dict:
    """Import every rule module under this package (each registers its rules), in name order:
    ``rules/<category>/<id>.py`` and the modules not yet moved there; ``lib`` holds no rules."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        mods = [m.name for m in pkgutil.walk_packages(__path__, prefix=f"{__name__}.")
                if m.name != f"{__name__}.lib" and not m.name.startswith(f"{__name__}.lib.")]
        for name in sorted(mods):
            importlib.import_module(name)
    return RULES
