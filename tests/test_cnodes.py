"""The C accelerator of the YAML loader (checker/_cnodes.c) against the pure path.

The accelerator builds the same positioned node tree as ``yamlload._parse_py`` (values, marks,
styles, tags, shared alias targets, the mapping index, duplicate keys, merge keys) and the same
problems, or hands the file to the pure path (``_parse_c`` returns None: libyaml refused it or
it reaches the nesting limit). Compared here over every YAML file of fixtures/ and tests/, the
hostile cases, the fast path's placeholders, and a bounded fuzz of mutated fixture files and
random bytes (identical results or identical refusals, no crash).

CI builds the extension (``pip install -e .`` compiles it), so there a missing accelerator
fails these tests instead of skipping them.
"""
import os
import random
import shutil
import subprocess
import sys
import zipfile

import pytest

from checker import fastyaml, yamlload
from checker.load import SKIP_KEYS
from checker.nodes import Skipped
from checker.yamlload import Limits, _parse_c, _parse_py, decode, parse

from conftest import FIXTURES, ROOT as REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
from benchmark import tree_key as tree  # noqa: E402 - the benchmark's --verify compares trees the same way
from helpers import run_cli

TESTS = os.path.dirname(os.path.abspath(__file__))

if yamlload._cnodes is None:
    if os.environ.get("CI"):
        raise RuntimeError("checker._cnodes is not built: CI must build the C accelerator (pip install -e .)")
    pytest.skip("checker._cnodes is not built here (no C compiler at install time)", allow_module_level=True)


def outcome(fn, *args, **kw):
    """What a parse gives, comparable: (tree, problems) or the exception's type."""
    try:
        docs, problems = fn(*args, **kw)
    except Exception as e:  # noqa: BLE001 - compared, not hidden
        return ("raised", type(e).__name__)
    return tree(docs), [vars(p) for p in problems]


def assert_same(text: str, limits=None, skip_keys=SKIP_KEYS) -> bool:
    """The C tree equals the pure one whenever C gives one, and ``parse`` (C, or the pure path
    where C hands over) equals ``_parse_py`` always. True when C gave the result itself."""
    want = outcome(_parse_py, text, limits, skip_keys)
    raw = _parse_c(text, limits, skip_keys, None, None)
    if raw is not None:
        assert (tree(raw[0]), [vars(p) for p in raw[1]]) == want
    assert outcome(parse, text, limits, skip_keys) == want
    return raw is not None


def yaml_files() -> list:
    out = []
    for base in (FIXTURES, TESTS):
        for d, _, names in os.walk(base):
            out += [os.path.join(d, n) for n in names if n.endswith((".yaml", ".yml", ".json"))
                    and os.path.isfile(os.path.join(d, n))]
    return sorted(out)


FILES = yaml_files()


def texts() -> list:
    out = []
    for f in FILES:
        with open(f, "rb") as fh:
            text, _ = decode(fh.read())
        if text is not None:
            out.append((os.path.relpath(f, REPO), text))
    return out


TEXTS = texts()


def test_every_yaml_file_of_the_fixtures_and_tests_gives_the_same_tree():
    assert len(TEXTS) > 1000
    built = 0
    for _, text in TEXTS:
        for skip in (SKIP_KEYS, frozenset()):
            built += assert_same(text, skip_keys=skip)
    # the C path decides nearly every file itself (it hands over the broken ones only)
    assert built > 2 * len(TEXTS) - 40


def test_the_fast_paths_placeholders_are_filled_the_same_way(monkeypatch):
    """``fastyaml.parse_fast`` blanks schema bodies out and has ``parse`` put placeholders in
    (and tell their depths): the same documents and problems with and without the accelerator."""
    compared = 0
    for name, text in TEXTS:
        if not any(k in text for k in SKIP_KEYS):
            continue
        monkeypatch.setattr(yamlload, "ACCELERATED", True)
        fast_c = fastyaml.parse_fast(text, None, SKIP_KEYS)
        monkeypatch.setattr(yamlload, "ACCELERATED", False)
        fast_py = fastyaml.parse_fast(text, None, SKIP_KEYS)
        assert (fast_c is None) == (fast_py is None), name
        if fast_c is not None:
            compared += 1
            assert (tree(fast_c[0]), [vars(p) for p in fast_c[1]]) == (tree(fast_py[0]), [vars(p) for p in fast_py[1]]), name
    assert compared > 20


def test_placeholders_and_depths_directly():
    text = "spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n\n\n  - name: v2\n"
    for fn in (_parse_c, _parse_py):
        holders = {5: Skipped(6, 9, "mapping"), 99: Skipped(1, 1, "mapping")}
        depths: dict = {}
        docs, problems = fn(text, None, SKIP_KEYS, holders, depths)
        schema = docs[0].get("spec").get("versions")[0].get("schema").get("openAPIV3Schema")
        assert (schema.line, schema.col, schema.shape) == (6, 9, "mapping")
        assert list(holders) == [99] and depths == {5: 5} and problems == []


@pytest.mark.parametrize("text", [
    # duplicate keys, same and different values, in built and skipped subtrees
    "a: 1\nb: 2\na: 1\na: 3\n",
    "x:\n  openAPIV3Schema:\n    properties:\n      a: {type: string}\n      a: {type: string}\n      b: 1\n      b: 2\n",
    # merge keys: a mapping, a list of mappings, an alias, a scalar, repeated, quoted, explicit tag
    "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n",
    "a: &a {x: 1}\nb: &b {y: 2, x: 9}\nm:\n  <<: [*a, *b]\n  <<: *a\n",
    "m:\n  <<: 1\n", "m:\n  <<: [1, {a: 1}]\n", "m:\n  '<<': 1\n", "m:\n  !!merge <<: {a: 1}\n",
    "x:\n  openAPIV3Schema:\n    <<: 1\n    a: &s 1\n    <<: *s\n",
    # null, complex and repeated null keys
    "~: 1\nnull: 2\n? [a]\n: 3\n? {a: 1}\n: 4\n'': 5\n",
    "x:\n  openAPIV3Schema:\n    ~: 1\n    ? [a]\n    : 2\n",
    # aliases of every kind, into and out of skipped subtrees
    "a: &a [1, 2]\nb: *a\nc: &c x\nd: *c\n",
    "x:\n  openAPIV3Schema: &s {a: 1}\ny: *s\nz:\n  openAPIV3Schema: *s\n",
    "x:\n  openAPIV3Schema:\n    &k a: 1\ny: *k\n",
    "a: *nothing\n", "&a [*a]\n",
    # tags, styles, resolution
    "a: !!str 1\nb: !!int x\nc: !custom v\nd: ! 12\ne: !!bool yes\nf: !!float .5\ng: !!null x\nh: =\n",
    "a: 'q'\nb: \"d\\u00e9\"\nc: |\n  lit\nd: >-\n  folded\ne: 0x1F\nf: 1_000\ng: 2001-12-14\nh: .nan\ni: -.inf\n",
    "- 1\n- [2, {3: 4}]\n- {? a, b: }\n",
    # documents
    "---\n---\na: 1\n...\n---\n- x\n", "", "---\n", "# only a comment\n", "--- |\n  text\n",
    # broken: handed to the pure path
    "a: [1\n", "a:\tb\n", "\x07", "a: 'x\n", "!foo%ED%A0%80 x\n", "[" * 200 + "]" * 200,
    "a:\n" + "".join("  " * i + "- \n" for i in range(300)),
])
def test_hostile_pieces(text):
    assert_same(text)
    assert_same(text, skip_keys=frozenset())


def test_limits():
    deep = "a:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(40))
    assert_same(deep, Limits(max_depth=16))
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" \
           "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    assert _parse_c(bomb, Limits(max_alias_nodes=500), SKIP_KEYS, None, None) is not None
    assert_same(bomb, Limits(max_alias_nodes=500))
    assert_same(bomb, Limits(max_alias_nodes=10 ** 30))
    assert_same(bomb)


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        if not lines:  # every line deleted: an empty text, still one line to mutate
            lines = [""]
        op = rng.randrange(7)
        i = rng.randrange(len(lines))
        if op == 0:
            lines[i] = " " * rng.randint(0, 6) + lines[i].lstrip()
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])  # a repeated line: duplicate keys
        elif op == 2:
            del lines[i]
        elif op == 3:
            j = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:j] + rng.choice(TOKENS) + lines[i][j:]
        elif op == 4:
            lines[i] = lines[i].replace(":", rng.choice([": &a", ": *a", ": <<", ": !!str", ":", "::"]), 1)
        elif op == 5:
            j = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:j] + chr(rng.choice([0x85, 0x2028, 0xFEFF, 0x7F, 0x1F600, 0xE9, 0x09])) + lines[i][j:]
        else:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return "\n".join(lines)


TOKENS = ["&a ", "*a", "<<: *a", "? ", "- ", "[", "]", "{", "}", ",", "~", "null", "'", '"', "|", ">", "!!int ",
          "!x ", "%TAG ! !\n", "---\n", "...\n", "#", "\t", ": ", "openAPIV3Schema:", "-", "0x1F", "yes", "=", "\\"]


FUZZ_SEED = 20261127  # CI's fixed seed; OLM_CHECK_FUZZ_SEED=random (or a number) for another


def fuzz_seed() -> int:
    env = os.environ.get("OLM_CHECK_FUZZ_SEED", "")
    if env == "random":
        return random.randrange(2 ** 32)
    return int(env) if env else FUZZ_SEED


def test_mutate_survives_deleting_every_line():
    """A one-line text whose only line is deleted is an empty text, not an IndexError: the
    seeds that drew delete-then-mutate on a one-line fixture failed about 1 run in 80."""
    texts = ["a: 1", "", "x"]
    for seed in range(3000):
        rng = random.Random(seed)
        assert isinstance(_mutate(rng, texts[seed % 3]), str)


def test_fuzz_mutated_fixtures_and_random_bytes():
    """Bounded (OLM_CHECK_FUZZ_EXAMPLES, default 20, times 15 cases): the same result or the
    same refusal, whatever the input. A fixed seed (FUZZ_SEED), so CI never fails at random;
    OLM_CHECK_FUZZ_SEED=random draws one (scripts/fuzz.py is for long random runs). The seed
    and the case are printed on any failure, an exception as well as an assertion."""
    seed = fuzz_seed()
    rng = random.Random(seed)
    n = int(os.environ.get("OLM_CHECK_FUZZ_EXAMPLES", "20")) * 15
    small = [t for _, t in TEXTS if len(t) < 6000]
    case, text = -1, ""
    try:
        for case in range(n):
            text = ""
            kind = case % 3
            if kind == 0:
                text = _mutate(rng, rng.choice(small))
            elif kind == 1:
                raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
                text, _ = decode(raw)
                if text is None:
                    text = raw.decode("utf-8", "replace")
            else:
                text = "".join(rng.choice(TOKENS + ["a", "b: ", "\n", "  ", "1"]) for _ in range(rng.randint(1, 60)))
            limits = Limits(max_depth=rng.choice([128, 8, 3]), max_alias_nodes=rng.choice([100_000, 20]))
            assert_same(text, limits, rng.choice([SKIP_KEYS, frozenset(), frozenset({"a", "b"})]))
    except Exception as e:
        raise AssertionError(f"OLM_CHECK_FUZZ_SEED={seed}, case {case}: {type(e).__name__}: {e}; text {text!r}") from e


def test_version_says_which_parser(tmp_path):
    p = run_cli("--version", cwd=tmp_path, env={"OLM_CHECK_PURE_YAML": ""})
    assert p.returncode == 0 and "yaml: C accelerator" in p.stdout
    p = run_cli("--version", cwd=tmp_path, env={"OLM_CHECK_PURE_YAML": "1"})
    assert p.returncode == 0 and "yaml: libyaml via PyYAML (turned off by OLM_CHECK_PURE_YAML)" in p.stdout


def test_findings_are_the_same_without_the_accelerator(tmp_path):
    """A real run over the fixture catalog tree, with and without the accelerator."""
    runs = []
    for env in ({"OLM_CHECK_PURE_YAML": ""}, {"OLM_CHECK_PURE_YAML": "1"}):
        p = run_cli("check", os.path.join(FIXTURES, "rules"), "--format", "json", "--progress", "never", cwd=tmp_path, env=env)
        assert p.returncode in (0, 1), p.stderr
        runs.append(p.stdout)
    assert runs[0] == runs[1]


def test_a_build_without_a_compiler_installs_the_pure_path(tmp_path):
    """The extension is optional: with no working compiler the wheel is built all the same,
    without it, and olm-check from that wheel says it runs the pure path."""
    src = tmp_path / "src"  # a clean copy: no extension built in place, no virtual environment
    for d in ("checker", "vendor"):
        shutil.copytree(os.path.join(REPO, d), src / d, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    for f in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(os.path.join(REPO, f), src / f)
    env = dict(os.environ, CC="false", CXX="false", LDSHARED="false")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                        "-w", str(tmp_path / "wheel"), str(src)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    (wheel,) = (tmp_path / "wheel").iterdir()
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "checker/yamlload.py" in names and not any("_cnodes" in n for n in names)
        z.extractall(tmp_path / "site")
    # a fresh environment that sees the wheel and this one's dependencies, not this checkout (an
    # editable install's import hook would otherwise find it first)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    py = tmp_path / "venv" / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = [p for p in sys.path if p.endswith("site-packages")]
    with open(os.path.join(site, "deps.pth"), "w") as fh:
        fh.write("\n".join([str(tmp_path / "site")] + deps) + "\n")
    p = subprocess.run([str(py), "-m", "checker", "--version"], cwd=tmp_path, capture_output=True, text=True,
                       env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OLM_CHECK_PURE_YAML")})
    assert p.returncode == 0 and "yaml: libyaml via PyYAML (accelerator not built)" in p.stdout, p.stdout + p.stderr
