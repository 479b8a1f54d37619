"""Command line: olm-check check | audit | fix | merge | rules | graph | upgradeable.

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 usage or
environment error, or nothing to check (message on stderr; a traceback only with --debug);
141 (128 + SIGPIPE) when the reader of stdout went away (``olm-check rules | head -1``).
"""
from __future__ import annotations

import argparse
import codecs
import itertools
import json
import os
import re
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from . import __version__
from .gates import TARGETS as PROFILES
from .targets import Refused, parse_target
from .usage import Usage

if TYPE_CHECKING:
    from .report.run import RunReport

FORMATS = ("text", "json", "sarif", "github")


class _Version(argparse.Action):
    """``--version``: olm-check's version and the YAML parser in use (the C accelerator or the
    pure path), then exit."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and which YAML parser is used, and exit"):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from .yamlload import parser_description

        sys.stdout.write(f"olm-check {__version__}\n{parser_description()}\n")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    from .selection import add_arguments as view_arguments
    from .suggest import Parser

    p = Parser(prog="olm-check", description="Check OLM operator bundles against the OpenShift releases they declare.")
    p.add_argument("--version", action=_Version)
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = p.add_subparsers(dest="command")
    p.commands = sub.choices  # name -> the subcommand's parser (its own usage errors)

    def common(sp):
        sp.add_argument("--ocp", help="check against these OpenShift releases (comma-separated, e.g. 4.16,4.17) instead of the declared range")
        sp.add_argument("--profile", choices=PROFILES,
                        help="the target catalog, whose gates decide what is an error (default: the catalog repository's "
                             "config.yaml organization, else community)")
        sp.add_argument("--format", choices=FORMATS, default="text", help="report format (default: text)")
        sp.add_argument("--output", help="also write the report to this file")
        sp.add_argument("--fail-on", choices=("error", "warning", "info", "never"),
                        help="exit 1 when a finding is at or above this severity (default: error)")
        sp.add_argument("--config", help="config file (default: .olm-check.yaml at the repository root)")
        sp.add_argument("--jobs", type=int, default=0, help="parallel worker processes (default: the number of cores)")
        sp.add_argument("--cache", metavar="DIR", help="result cache directory: unchanged bundles are not checked again")
        sp.add_argument("--shard", metavar="I/N",
                        help="check only shard I of N (1-based; whole operators per shard); merge the JSON reports with `olm-check merge`")
        sp.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                        help="progress bar on stderr (default: auto, when stderr is a terminal)")
        sp.add_argument("--allow-empty", action="store_true", help="exit 0 when the paths hold nothing to check (default: exit 2)")
        view_arguments(sp)
        sp.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)

    c = sub.add_parser("check", help="check bundles, operators, repositories")
    c.add_argument("paths", nargs="*", default=["."], help="bundle dir, operator dir, or repository root (default: .)")
    c.add_argument("--changed-since", metavar="REF", help="check only what changed since REF (git, three-dot); the rest is context")
    # baseline states (checker/baseline.py): new / unchanged / updated against a base commit
    c.add_argument("--baseline", metavar="REF", help="mark each finding new, unchanged or updated against REF (git); "
                   "--changed-since does it against its merge base; only new and updated findings fail the run")
    c.add_argument("--fail-on-unchanged", action="store_true", help="with a baseline: unchanged findings fail the run too")
    common(c)

    a = sub.add_parser("audit", help="check a whole catalog repository (every bundle)")
    a.add_argument("paths", nargs="*", default=["."], help="repository root (default: .)")
    common(a)

    fx = sub.add_parser("fix", help="apply the fixes the checks compute (like ruff --fix); --diff shows them without writing")
    fx.add_argument("paths", nargs="*", default=["."], help="bundle dir, operator dir, repository root, or files of them (default: .)")
    fx.add_argument("--diff", action="store_true", help="print the fixes as a unified diff, write nothing (exit 1 when there is something to fix)")
    fx.add_argument("--ocp", help="check against these OpenShift releases (as check)")
    fx.add_argument("--profile", choices=PROFILES, help="rule defaults (as check)")
    fx.add_argument("--config", help="config file (as check)")
    fx.add_argument("--allow-empty", action="store_true", help="exit 0 when the paths hold nothing to check")
    from .selection import add_rule_choice

    add_rule_choice(fx, "fix")
    fx.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)

    m = sub.add_parser("merge", help="merge the JSON reports of sharded runs into one report")
    m.add_argument("reports", nargs="+", help="JSON reports (olm-check ... --shard I/N --format json)")
    m.add_argument("--format", choices=FORMATS, default="json", help="report format (default: json)")
    m.add_argument("--output", help="also write the report to this file")
    m.add_argument("--fail-on", choices=("error", "warning", "info", "never"), default="error",
                   help="exit 1 when a finding is at or above this severity (default: error)")
    view_arguments(m)
    m.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)

    r = sub.add_parser("rules", help="list the rules, or explain one (olm-check rules RULE-ID)")
    r.add_argument("rule", nargs="?", metavar="RULE-ID", help="explain this rule: summary, severity per profile, who refuses it, explanation")
    r.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    r.add_argument("--profile", choices=PROFILES)

    gr = sub.add_parser("graph", help="draw the channel graphs OLM builds for an operator (replaces, skips, skipRange, semver mode, FBC)")
    gr.add_argument("path", metavar="OPERATOR_DIR", help="the operator's directory, operators/<name>/")
    gr.add_argument("--channel", help="only this channel")
    gr.add_argument("--format", choices=("text", "mermaid", "dot", "json"), default="text", help="output format (default: text)")
    gr.add_argument("--ocp", help="the OpenShift release whose file-based catalog to draw (FBC operators; default: the newest)")
    gr.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)

    u = sub.add_parser("upgradeable", help="OLM's Upgradeable verdict for CSVs on a cluster version")
    u.add_argument("--cluster-version", required=True, help="the cluster's OpenShift version, e.g. 4.8")
    u.add_argument("paths", nargs="+", help="CSV files or bundle directories")
    u.add_argument("--format", choices=("text", "json"), default="text")
    u.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return p


def _implicit_check(argv: list, commands) -> list:
    """``olm-check PATH...`` is ``olm-check check PATH...`` (as the image's entrypoint takes
    a bare path), and so is ``olm-check --OPTION...`` (an option of ``check``'s; ``--help``
    and ``--version`` stay olm-check's): the first word that is no command is a path when it exists,
    holds a ``/`` or a ``.``, or is not close to a command name (``chek`` stays a mistyped
    command, with its did-you-mean)."""
    from .suggest import close

    for i, word in enumerate(argv):
        if word in ("--debug",):
            continue
        if word in commands or word in ("-h", "--help", "--version"):
            return argv
        if word.startswith("-"):  # an option of check's: ``olm-check --format json``
            return argv[:i] + ["check"] + argv[i:]
        if os.path.lexists(word) or "/" in word or "." in word:
            return argv[:i] + ["check"] + argv[i:]
        if not close(word, commands, n=1):
            from .discover import _sibling_hint

            raise Usage(f"{word}: not a command ({', '.join(commands)}) and no such file or directory{_sibling_hint(word)}")
        return argv
    return argv


def main(argv: Optional[list] = None) -> int:
    parser = _parser()
    try:
        argv = _implicit_check(list(sys.argv[1:] if argv is None else argv), parser.commands)
    except Usage as e:
        print(f"olm-check: {e}", file=sys.stderr)
        return 2
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported by the subcommand's parser: its usage, not the top level's
            sub = parser.commands.get(args.command) if args.command else None
            (sub or parser).error("unrecognized arguments: " + " ".join(extra))
    except SystemExit as e:  # argparse: 2 for usage errors, 0 for --help
        return int(e.code or 0)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        code = _dispatch(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        return _pipe_closed()
    except (Usage, Refused) as e:
        print(f"olm-check: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("olm-check: interrupted", file=sys.stderr)
        return 2
    except Exception as e:  # pragma: no cover - last line of defence
        if getattr(args, "debug", False):
            raise
        print(f"olm-check: internal error: {type(e).__name__}: {e} (run with --debug for details; please report it)", file=sys.stderr)
        return 2


def _pipe_closed() -> int:
    """The reader of stdout went away (``| head``): end quietly, as a program killed by
    SIGPIPE does (exit 128 + 13), with stdout pointed at /dev/null so Python's own flush
    at exit has nowhere to fail."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass
    return 141


def _dispatch(args) -> int:
    if args.command == "rules":
        return cmd_rules(args)
    from .runner.processes import collector_tuned

    if args.command == "merge":
        with collector_tuned():  # the whole command: reports of 100,000s of objects are built
            return cmd_merge(args)
    if args.command == "fix":
        from .fix import cmd_fix

        return cmd_fix(args)
    if args.command == "graph":
        from .graph_view import cmd_graph

        return cmd_graph(args)
    if args.command == "upgradeable":
        from .upgradeable import cmd_upgradeable

        return cmd_upgradeable(args)
    with collector_tuned():
        return cmd_check(args)


def cmd_rules(args) -> int:
    from .rules import RULES, load_all

    load_all()
    if args.rule:
        from .docs import explain_rule

        print(explain_rule(args.rule, args.format), end="")
        return 0
    rules = sorted(RULES.values(), key=lambda r: (r.category, r.id))
    if args.profile:
        rules = [r for r in rules if r.severity_in(args.profile)]
    if args.format == "json":
        print(json.dumps({"rules": [r.to_json() for r in rules]}, indent=2, ensure_ascii=False))
    elif args.format == "markdown":
        from .docs import rules_markdown

        print(rules_markdown(rules), end="")
    else:
        prof = args.profile or "community"
        for r in rules:
            print(f"{r.id:40} {r.severity_in(prof) or 'off':8} {r.summary}")
    return 0


def cmd_check(args) -> int:  # noqa: C901
    from .api import CheckError, check
    from .roots import repo_root
    from .runner.snapshot import content_digests
    from .runner.processes import default_jobs

    from . import targets
    from .engine import exit_code
    from .selection import View

    paths = targets.expand(args.paths or ["."])
    target = parse_target(args.ocp)
    targets.check_ocp(target, paths, args.config)
    view = View.from_args(args)
    shard = parse_shard(args.shard)
    if args.jobs < 0:
        raise Usage("--jobs must be 0 (the number of cores) or more")
    jobs = args.jobs or default_jobs()
    changes = None  # --changed-since: the change list (pr-shape reads it), three-dot plus the work tree
    if getattr(args, "changed_since", None):
        from .changes import ChangeError, git_changes

        if targets.outside_git(paths):
            raise Usage(f"--changed-since {args.changed_since}: {paths[0]} is not inside a git work tree")
        try:
            changes = git_changes(repo_root(paths), args.changed_since, "HEAD", worktree=True)
        except ChangeError as e:
            raise Usage(f"--changed-since {args.changed_since}: {targets.first_line(e)}")
    if args.cache:  # before its snapshots are read (``api.check`` says the same of its results)
        from .runner.cache import unsafe_reason

        reason = unsafe_reason(args.cache, paths + [repo_root(paths)])
        if reason is not None:
            raise Usage(f"--cache {args.cache}: refused: {reason}")
    baseline_ref = getattr(args, "baseline", None) or getattr(args, "changed_since", None)
    snap = _snapshot(args, paths, jobs) if args.cache and changes is None and not baseline_ref else None
    if snap is not None:
        snaps, key, racy = snap
        got = snaps.get(key)
        if got is not None:  # the same command on the same tree: the same report
            snaps.close()
            return _emit_text(args, got[1], got[2], got[0])  # the view is in the key
        racy = content_digests(racy)  # before the run reads them
    bar = Progress.make(args.progress)
    try:
        res = check(paths, config_path=args.config, profile=args.profile, fail_on=args.fail_on, target=target, changes=changes,
                    jobs=jobs, cache_dir=args.cache, shard=shard, progress=bar)
    except CheckError as e:
        raise Usage(str(e))
    finally:
        if bar is not None:
            bar.close()
    if shard is not None:
        from .report.run import Shard

        res.run = replace(res.run, shard=Shard(shard[0] + 1, shard[1]))
    if changes is None and shard is None and not args.allow_empty and targets.nothing_checked(res):
        if snap is not None:
            snaps.close()
        raise Usage(targets.nothing_message(paths))
    gate = None
    if baseline_ref:  # --baseline / --changed-since: states against the base; unchanged ones do not fail
        from .baseline import BaselineError, for_cli, gating

        try:
            for_cli(res, paths, baseline_ref, not getattr(args, "baseline", None), changes, args.config, target)
        except BaselineError as e:
            raise Usage(f"{'--baseline' if getattr(args, 'baseline', None) else '--changed-since'} {baseline_ref}: {e}")
        gate = lambda fs: gating(fs, getattr(args, "fail_on_unchanged", False))  # noqa: E731
    # --select/--ignore: the exit code follows; the job summary's verdict reads res.fail_on
    run = view.choose(replace(res.run, fail_on=res.fail_on,
                              fail_on_unchanged=bool(getattr(args, "fail_on_unchanged", False))))
    view.paths = _text_paths(paths)
    code = exit_code(gate(list(run.findings)) if gate else list(run.findings), res.fail_on)
    if snap is None:
        _emit(args, run, view=view)
        return code
    from .runner.snapshot import Recorder

    rec = Recorder()
    summary = _emit(args, run, record=rec, view=view)
    snaps.put(key, code, rec.done(), summary, racy)
    snaps.close()
    return code


def _text_paths(paths: list):
    """The text report's paths: relative to the current directory, as linters print them
    (the report's own paths, in JSON, SARIF and github, stay relative to the repository root:
    GitHub code scanning and annotations need those)."""
    from .roots import display_base as display_base_for
    from .report.text import Paths

    return Paths(display_base_for(paths), paths)


def _snapshot(args, paths: list, jobs: int = 1):
    """(``snapshot.Snapshots``, key, racily clean files) for this run, or None when it is not
    snapshotted: only a whole catalog repository is (its root, holding operators/, among the
    paths, nothing outside it: everything a run reads is then below the root), with not too
    many files just written, and a usable cache directory."""
    from .roots import config_path, display_base, repo_root
    from .runner.snapshot import Snapshots, file_digest, tree_signature

    root = os.path.abspath(repo_root(paths))
    full = [os.path.abspath(p) for p in paths]
    if root not in full or not all(os.path.isdir(p) and os.path.commonpath([root, p]) == root for p in full):
        return None  # a part of a repository: walking all of it would cost more than it saves
    if not os.path.isdir(os.path.join(root, "operators")) or "operators" in root.split(os.sep):
        return None  # not a catalog repository's root: what it reads may lie outside it
    # the --output file changes on every run; one the checker could read (YAML) stays in
    walked = tree_signature(root, [args.cache] + ([args.output] if args.output and not args.output.endswith((".yaml", ".yml")) else []), jobs)
    if walked is None:
        return None
    config = os.path.abspath(args.config) if args.config else config_path(paths)
    command = [args.command, [os.path.abspath(p) for p in paths], args.ocp, args.profile, args.format, args.fail_on,
               config, file_digest(config), args.shard, os.getcwd(), root, display_base(paths)]
    from .selection import View

    command += View.from_args(args).key() + [bool(args.allow_empty)]
    try:
        snaps = Snapshots(args.cache)
    except (OSError, Exception):  # sqlite3.Error: the run reports the cache problem itself
        return None
    return snaps, Snapshots.key(command, walked[0]), walked[1]


def _output(args, binary: bool = False):
    """The --output file, opened for writing (text, or bytes), or None."""
    if not args.output:
        return None
    try:
        return open(args.output, "wb") if binary else open(args.output, "w", encoding="utf-8")
    except OSError as e:
        raise Usage(f"--output {args.output}: {e.strerror}")


def _to_output(args, fh, piece) -> None:
    if fh is not None:
        try:
            fh.write(piece)
        except OSError as e:
            raise Usage(f"--output {args.output}: {e.strerror}")


def _step_summary(text: str) -> None:
    step = os.environ.get("GITHUB_STEP_SUMMARY")
    if step:
        with open(step, "a", encoding="utf-8") as fh:
            fh.write(text)


class _JobLogWindow:
    """Report text a pull request controls (a displayName, a label, a file name) must not
    become a workflow command in a GitHub Actions job log: the runner acts on any line that
    starts with ``::`` and on ``##[name]`` anywhere in a line.

    * ``text`` inside a step (``GITHUB_ACTIONS=true``) is printed between
      ``::stop-commands::TOKEN`` and ``::TOKEN::``; the token is random per run, so the
      report cannot end the window.
    * ``json`` and ``sarif`` never hold a line starting with ``::`` (strings escape line
      breaks), and ``##[`` (only ever inside a string) is written ``##\\u005b``, the same
      JSON string: stdout and ``--output`` stay valid, identical JSON everywhere.
    * ``github`` is workflow commands by design, each one escaped (``report.github``).
    ``filter`` takes the pieces in order (str or UTF-8 bytes); a ``##[`` split between two
    pieces is caught by holding back a piece's last two characters."""

    def __init__(self, fmt: str):
        self.token = None
        self.json = fmt in ("json", "sarif")
        self.held = None
        if fmt == "text" and os.environ.get("GITHUB_ACTIONS") == "true":
            import secrets

            self.token = "olm-check-" + secrets.token_hex(16)

    def filter(self, piece):
        if not self.json:
            return piece
        if self.held is not None:
            piece = self.held + piece
        if isinstance(piece, bytes):
            piece = piece.replace(b"##[", b"##\\u005b")
            tail = len(piece) - len(piece.rstrip(b"#"))
        else:
            piece = piece.replace("##[", "##\\u005b")
            tail = len(piece) - len(piece.rstrip("#"))
        tail = min(tail, 2)
        self.held = piece[len(piece) - tail:] if tail else piece[:0]
        return piece[:len(piece) - tail] if tail else piece

    def rest(self):
        held, self.held = self.held, None
        return held

    def __enter__(self):
        if self.token:
            sys.stdout.write(f"::stop-commands::{self.token}\n")
        return self

    def __exit__(self, *exc):
        if self.token:
            sys.stdout.flush()
            sys.stdout.write(f"\n::{self.token}::\n")
            sys.stdout.flush()
        return False


def _emit(args, run: RunReport, record=None, view=None) -> Optional[str]:
    """Write the report (stdout, --output, the step summary); ``record``
    (``snapshot.Recorder``) gets every piece too; ``view`` (``selection.View``) what is shown.
    Returns the step summary written."""
    from .report.text import strip_colour
    from .rules import RULES, load_all
    from .selection import View

    load_all()
    view = view or View.from_args(args)
    fh = _output(args)
    try:
        with _JobLogWindow(args.format) as window:
            for piece in view.chunks(run, RULES):
                piece = window.filter(piece)
                if not piece:
                    continue
                sys.stdout.write(piece)
                _to_output(args, fh, strip_colour(piece) if view.colour else piece)
                if record is not None:
                    record.write(piece)
            rest = window.rest()
            if rest:
                sys.stdout.write(rest)
                _to_output(args, fh, rest)
                if record is not None:
                    record.write(rest)
    finally:
        if fh is not None:
            fh.close()
    text = None
    if args.format == "github":
        from .report.markdown import run_summary

        text = run_summary(run)  # (the verdict line: run.fail_on)
        _step_summary(text)
    return text


def _emit_text(args, pieces, summary: Optional[str], code: int) -> int:
    """Write a report rendered before (a run snapshot: UTF-8 bytes, piece by piece)."""
    fh = _output(args, binary=True)
    utf8 = (sys.stdout.encoding or "").lower().replace("-", "") == "utf8" and hasattr(sys.stdout, "buffer")
    decode = codecs.getincrementaldecoder("utf-8")().decode  # a piece may end inside a character
    try:
        with _JobLogWindow(args.format) as window:
            sys.stdout.flush()
            for piece in itertools.chain(pieces, [None]):
                piece = window.filter(piece) if piece is not None else window.rest()
                if not piece:
                    continue
                if utf8:
                    sys.stdout.buffer.write(piece)
                else:
                    sys.stdout.write(decode(piece))
                _to_output(args, fh, re.sub(rb"\033\[[0-9;]*m", b"", piece) if b"\033[" in piece else piece)
    finally:
        if fh is not None:
            fh.close()
    sys.stdout.flush()
    if summary is not None:
        _step_summary(summary)
    return code


def parse_shard(s: Optional[str]) -> Optional[tuple]:
    """'I/N' (1-based) -> (I-1, N)."""
    if not s:
        return None
    parts = s.split("/")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise Usage(f"--shard: '{s}' is not I/N, e.g. 2/4")
    i, n = int(parts[0]), int(parts[1])
    if n < 1 or not 1 <= i <= n:
        raise Usage(f"--shard {s}: I must be between 1 and N")
    return i - 1, n


def cmd_merge(args) -> int:
    from .engine import exit_code
    from .runner.merge import MergeError, merged

    reports = []
    for p in args.reports:
        try:
            with open(p, encoding="utf-8") as fh:
                reports.append((p, json.load(fh)))
        except OSError as e:
            raise Usage(f"{p}: {e.strerror}")
        except ValueError as e:
            raise Usage(f"{p}: not a JSON report ({e})")
    from .selection import View

    view = View.from_args(args)
    try:
        run = merged(reports)
    except MergeError as e:
        raise Usage(str(e))
    run = view.choose(replace(run, fail_on=args.fail_on or "error"))
    _emit(args, run, view=view)
    return exit_code(list(run.findings), args.fail_on)


class Progress:
    """``[#####.....] 1234/7068 bundles  12 s`` on stderr, redrawn at most 10 times a second."""

    def __init__(self, stream):
        self.stream, self.start, self.last, self.drawn = stream, time.monotonic(), 0.0, False

    @classmethod
    def make(cls, mode: str):
        if mode == "never" or (mode == "auto" and not sys.stderr.isatty()):
            return None
        return cls(sys.stderr)

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        fill = int(width * done / total) if total else width
        self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} bundles  {now - self.start:.0f} s ")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
