"""Small helpers shared by tests: run the checker the way users do."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_cli(*args, cwd=None, env=None, input=None):
    """Run `python -m checker ARGS` as a subprocess; returns CompletedProcess (text)."""
    e = dict(os.environ)
    e["PYTHONPATH"] = ROOT + os.pathsep + e.get("PYTHONPATH", "")
    e.pop("GITHUB_ACTIONS", None)
    if env:
        e.update(env)
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=cwd, env=e, capture_output=True,
                          text=True, input=input, timeout=120)


def run_json(*args, cwd=None):
    p = run_cli(*args, "--format", "json", cwd=cwd)
    assert p.returncode in (0, 1), p.stderr
    assert "Traceback" not in p.stderr
    return p.returncode, json.loads(p.stdout)


def message_length(message: str, value: int = 60) -> int:
    """A message's length with each value it quotes ('...') counted as at most ``value``
    characters: values are never cut (issue 26: four findings must not read alike), the
    sentence around them is what must stay short."""
    import re

    return len(re.sub(r"'[^']{%d,}'" % (value - 1), "'" + "v" * (value - 2) + "'", message))
