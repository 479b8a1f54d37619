"""The README is where people start (issue 26): at most 250 lines, the two commands (run; test)
at the top and working from a clone, install and quick starts, links into docs/ that
resolve; what moved to docs/ stays true (tests/test_workflows.py: its workflows are the linted
docs/examples/; tests/test_action_units.py: every input in docs/action.md; tests/test_hostile.py:
the limits)."""
import os
import re

from helpers import ROOT, run_cli

README = os.path.join(ROOT, "README.md")


def _text(path=README) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def test_readme_is_short_and_starts_with_the_two_commands():
    text = _text()
    assert len(text.splitlines()) <= 250
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S)
    run, test = blocks[0].strip(), blocks[1].strip()
    assert run.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/olm-check check ")
    assert test == "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    assert text.index(run) < text.index("## Install") < text.index("## Quick start: an operator author") \
        < text.index("## Quick start: a catalog maintainer") < text.index("## Documentation")


def test_the_run_command_works_from_a_clone():
    """The path the README's first command checks is in the repository, and is clean."""
    run = re.findall(r"^```sh\n(.*?)^```", _text(), re.M | re.S)[0].strip()
    args = run.split(".venv/bin/olm-check ", 1)[1].split()
    p = run_cli(*args, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 bundle(s) checked: 0 error(s)" in p.stdout


def test_links_into_docs_resolve():
    for path in [README] + [os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")]:
        base = os.path.dirname(path)
        for target in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", _text(path)):
            assert os.path.isfile(os.path.join(base, target)), f"{os.path.relpath(path, ROOT)}: {target}"
    text = _text()
    for doc in ("usage.md", "action.md", "configuration.md", "how-it-works.md", "rules.md"):
        assert f"(docs/{doc})" in text, doc


def test_every_rule_is_in_rules_md():
    from checker.rules import RULES, load_all

    load_all()
    doc = _text(os.path.join(ROOT, "docs", "rules.md"))
    missing = [r for r in RULES if f"\n## {r}\n" not in doc]
    assert not missing
