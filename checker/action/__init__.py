"""The GitHub Action: read the run's environment and event, find what changed, check it,
report it where people look. ``entrypoint.py`` calls :func:`main`.

Outside GitHub Actions (``GITHUB_ACTIONS`` unset) the arguments go to the command line
(``docker run --rm -v "$PWD:/work" IMAGE bundle`` = ``olm-check check bundle``): the
terminal report and its exit code, no token, nothing posted.

Nothing from the pull request is executed: files are read as data, git is only asked for
diffs and commit presence.
"""
from __future__ import annotations

import base64
import os
import sys
import tempfile
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional
from urllib.parse import quote

from .. import git
from ..changes import ChangeError, affected, from_github_files, git_changes, git_patch, has_commits
from ..report.github import inert, stop_commands, workflow_command
from ..report.run import RunReport
from .choose import choose, read_only
from .client import ApiError, GitHub
from .common import Who, graphs_markdown
from .diffmap import added_lines, right_lines, split_git_diff
from .env import ActionEnv, ActionError
from .jobsummary import JobSummary, append_summary
from .publish import PublishContext, publish_all
from .review import inline_candidates
from .workflow_commands import WorkflowCommands

SUBCOMMANDS = ("check", "rules", "upgradeable", "audit", "merge", "fix", "graph")
MAX_PR_FILES = 3000


def log(msg: str) -> None:
    """A line for the job log (stderr). It may hold text from the checked tree or from
    GitHub's answers: made inert, so the runner never takes it for a workflow command."""
    print(inert(msg), file=sys.stderr, flush=True)


@dataclass
class Changes:
    changes: Optional[list] = None  # None: unknown -> check the whole path
    source: str = ""
    right: dict = field(default_factory=dict)  # path -> RIGHT-side commentable lines
    added: dict = field(default_factory=dict)  # path -> the lines the change wrote (None: all of them)
    notes: list = field(default_factory=list)
    base: Optional[str] = None  # the commit the change list starts from: the baseline (checker/baseline.py)


def _git(root: str, *args: str) -> Optional[str]:
    return git.output(root, *args)


def trust_workspace(workspace: str) -> None:
    """The container runs as root on a workspace owned by the runner's user: tell git it is
    safe (``git config --global --add safe.directory``), or git refuses to read it."""
    git.trust(workspace)


def find_changes(env: ActionEnv, gh: Optional[GitHub], root: str) -> Changes:
    """The change list of the run: git (history present), the PR files API (shallow
    checkout), the merge commit's first parent, or unknown (check everything)."""
    out = Changes()
    pr = env.pull
    if pr is not None:
        if has_commits(root, pr.base_sha, pr.head_sha):
            try:
                out.changes = git_changes(root, pr.base_sha, pr.head_sha)
                patches = split_git_diff(git_patch(root, pr.base_sha, pr.head_sha))
                out.right = {p: right_lines(t) for p, t in patches.items()}
                out.added = {p: added_lines(t) for p, t in patches.items()}
                out.source = f"git diff {pr.base_sha[:12]}...{pr.head_sha[:12]}"
                out.base = _git(root, "merge-base", pr.base_sha, pr.head_sha)
                return out
            except ChangeError as e:
                out.notes.append(f"git could not diff the pull request ({e}); asking GitHub for its files.")
        if gh is not None:
            try:
                files = gh.paginate(f"pulls/{pr.number}/files", limit=MAX_PR_FILES)
                if pr.changed_files is not None and pr.changed_files > len(files):
                    out.notes.append(f"GitHub lists only {len(files)} of this pull request's {pr.changed_files} "
                                     "files; olm-check checked the whole path instead.")
                    return out
                out.changes = from_github_files(files)
                out.right = {f["filename"]: right_lines(f.get("patch")) for f in files if isinstance(f, dict) and f.get("filename")}
                # GitHub leaves out the patch of a large diff: the whole file counts as written
                out.added = {f["filename"]: added_lines(f["patch"]) if isinstance(f.get("patch"), str) else None
                             for f in files if isinstance(f, dict) and isinstance(f.get("filename"), str)}
                out.source = f"the pull request's files ({len(files)}, GitHub API)"
                out.base = pr.base_sha if has_commits(root, pr.base_sha) else None
                return out
            except ApiError as e:
                out.notes.append(f"the pull request's files could not be listed ({e.status} {e.message}).")
        if env.sha and has_commits(root, env.sha, f"{env.sha}^1"):
            try:
                out.changes = git_changes(root, f"{env.sha}^1", env.sha)
                patches = split_git_diff(git_patch(root, f"{env.sha}^1", env.sha))
                out.right = {p: right_lines(t) for p, t in patches.items()}
                out.added = {p: added_lines(t) for p, t in patches.items()}
                out.source = f"the merge commit {env.sha[:12]} against its first parent"
                out.base = _git(root, "rev-parse", f"{env.sha}^1")
                return out
            except ChangeError:
                pass
        out.notes.append("the changed files are unknown (no history, no API access); olm-check checked the whole path.")
        return out
    if env.event_name == "push" and env.push_before and env.push_after:
        if has_commits(root, env.push_before, env.push_after):
            try:
                out.changes = git_changes(root, env.push_before, env.push_after)
                out.source = f"git diff {env.push_before[:12]}...{env.push_after[:12]}"
                out.base = _git(root, "merge-base", env.push_before, env.push_after)
                return out
            except ChangeError as e:
                out.notes.append(f"git could not diff the push ({e}); olm-check checked the whole path.")
        else:
            out.notes.append("the pushed commits are not in the checkout (fetch-depth: 0 makes them available); "
                             "olm-check checked the whole path.")
    return out


def resolve_pull(env: ActionEnv, gh: Optional[GitHub], notes: list) -> None:
    """``workflow_run`` (the fork-safe second workflow): the pull request comes from the
    ``pull_request`` input or the event; its head and base from the API. The number is
    written by the first, untrusted run (an artifact), so it is verified: the pull
    request's head must be the commit and repository the triggering run checked
    (``workflow_run.head_sha``, ``workflow_run.head_repository``), or nothing is written."""
    from .env import PullRequest

    if gh is None:
        raise ActionError("input pull_request needs a token (github_token) to read the pull request")
    verify = env.event_name == "workflow_run"
    if verify and not (env.run_head_sha and env.run_head_repo):
        raise ActionError("the workflow_run event names no head commit and repository: the pull request "
                          f"{env.pull_number} cannot be verified, so nothing was posted")
    try:
        pr = gh.get(f"pulls/{env.pull_number}")
    except ApiError as e:
        raise ActionError(f"pull request {env.pull_number} cannot be read ({e.status} {e.message})") from None
    head, base = pr.get("head") or {}, pr.get("base") or {}
    repo_name = lambda side: (side.get("repo") or {}).get("full_name") if isinstance(side.get("repo"), dict) else None
    if not isinstance(head.get("sha"), str) or not isinstance(base.get("sha"), str):
        raise ActionError(f"pull request {env.pull_number}: GitHub's answer has no head/base commit")
    if verify:
        pr_repo = repo_name(head) or "(deleted repository)"
        if head["sha"] != env.run_head_sha or pr_repo.lower() != env.run_head_repo.lower():
            raise ActionError(
                f"pull request {env.pull_number} is not the one the triggering run checked: its head is "
                f"{head['sha'][:12]} in {pr_repo}, the run checked {env.run_head_sha[:12]} in {env.run_head_repo} "
                "(a wrong number in the artifact, or the pull request moved on: its new commit gets its own "
                "run); nothing was posted")
    cf = pr.get("changed_files")
    env.pull = PullRequest(env.pull_number, head["sha"], base["sha"], repo_name(head), repo_name(base),
                           cf if isinstance(cf, int) else None)


def _base_text(env: ActionEnv, gh: Optional[GitHub], root: str, rel: str) -> tuple:
    """(the text of ``rel`` at the pull request's base commit or None when it has no such
    file, where it was read): ``git show`` when the checkout holds the base, else the
    contents API. An ActionError when it cannot be read: nothing is then posted."""
    base = env.pull.base_sha
    text: Optional[str] = None
    if has_commits(root, base):
        if _git(root, "cat-file", "-e", f"{base}:{rel}") is not None:
            if _git(root, "cat-file", "-t", f"{base}:{rel}") != "blob":
                raise ActionError(f"config_from_base: {rel} at the base commit is not a file")
            try:
                res = git.run(root, "show", f"{base}:{rel}", timeout=60)
            except git.GitError as e:
                raise ActionError(f"config_from_base: git cannot read {rel} at the base commit ({e})") from None
            if res.returncode != 0:
                raise ActionError(f"config_from_base: git cannot read {rel} at the base commit {base[:12]}")
            text = res.stdout.decode("utf-8", "replace")
        return text, f"the base commit {base[:12]} (git)"
    if gh is None:
        raise ActionError("config_from_base: the base commit is not in the checkout and there is no token "
                          "to read it from GitHub")
    data = _base_contents(gh, rel, base)
    if isinstance(data, dict) and data.get("type") == "file" and isinstance(data.get("content"), str):
        try:
            text = base64.b64decode(data["content"]).decode("utf-8", "replace")
        except ValueError:
            raise ActionError(f"config_from_base: GitHub's answer for {rel} is not base64") from None
    elif data is not None:
        raise ActionError(f"config_from_base: {rel} at the base commit is not a file")
    return text, f"the base commit {base[:12]} (GitHub API)"


def _base_contents(gh: GitHub, rel: str, base: str) -> Any:
    try:
        return gh.get(f"contents/{quote(rel)}", params={"ref": base})
    except ApiError as e:
        if e.status != 404:
            raise ActionError(f"config_from_base: {rel} cannot be read from the base commit {base[:12]} "
                              f"({e.status} {e.message}); nothing was posted") from None
        return None


def _base_names(env: ActionEnv, gh: Optional[GitHub], root: str, rel: str) -> tuple:
    """The names of the entries of the directory ``rel`` at the base commit (empty when it
    has none), as ``_base_text`` reads files."""
    base = env.pull.base_sha
    if has_commits(root, base):
        if _git(root, "cat-file", "-t", f"{base}:{rel}") != "tree":
            return ()
        out = _git(root, "ls-tree", "--name-only", "-z", f"{base}:{rel}")
        if out is None:
            raise ActionError(f"config_from_base: git cannot list {rel} at the base commit {base[:12]}")
        return tuple(n for n in out.split("\0") if n)
    if gh is None:
        raise ActionError("config_from_base: the base commit is not in the checkout and there is no token "
                          "to read it from GitHub")
    data = _base_contents(gh, rel, base)
    if isinstance(data, list):
        return tuple(e["name"] for e in data if isinstance(e, dict) and isinstance(e.get("name"), str))
    return ()


def _write_temp(name: str, text: str) -> str:
    """``text`` in a new file ``name`` of a new directory outside the workspace."""
    tmp = tempfile.mkdtemp(prefix="olm-check-base-", dir=os.environ.get("RUNNER_TEMP") or None)
    out = os.path.join(tmp, name)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(text)
    return out


def base_config(env: ActionEnv, gh: Optional[GitHub], root: str, config: Optional[str], notes: list) -> Optional[str]:
    """``config_from_base``: the config file as the pull request's base commit has it
    (``git show`` when the checkout holds the base, else the contents API), written to a
    file outside the workspace, so a pull request cannot change its own verdict (say
    ``fail_on: never``). A config file outside the checked tree is not the pull request's:
    used as it is."""
    path = config or os.path.join(root, ".olm-check.yaml")
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    if rel.startswith("../") or rel == "..":
        return config
    text, source = _base_text(env, gh, root, rel)
    out = _write_temp(".olm-check.yaml", text or "")
    if text is None:
        notes.append(f"Configuration: `{rel}` does not exist at {source}: the defaults apply "
                     "(`config_from_base`; the checked tree's copy is not used).")
    else:
        notes.append(f"Configuration: `{rel}` from {source} (`config_from_base`), not from the pull request.")
    return out


def base_trust(env: ActionEnv, gh: Optional[GitHub], root: str, ch: Changes, notes: list):
    """``config_from_base``, for the rest of what decides a verdict: the catalog repository's
    root ``config.yaml`` (its organization picks the target, its ``tests:`` waive gates) and
    its ``catalogs/`` releases as the base commit has them, and only the inline ignores on
    lines the pull request does not write (``context.IgnoreScope``)."""
    from ..api import Trusted
    from ..context import IgnoreScope
    from ..gates import CatalogSource
    from ..load import Reader

    scope = IgnoreScope(added=dict(ch.added)) if ch.changes is not None else IgnoreScope(unknown=True)
    if not os.path.isdir(os.path.join(root, "operators")):  # not a catalog repository
        return Trusted(ignores=scope)
    text, source = _base_text(env, gh, root, "config.yaml")
    cfg = _write_temp("config.yaml", text) if text is not None else None
    d = os.path.dirname(cfg) if cfg else None
    releases = _base_names(env, gh, root, "catalogs")
    notes.append("Catalog: `config.yaml` (organization, `tests:` waivers) and the `catalogs/` releases "
                 + (f"from {source}" if text is not None else f"as {source} has them (no `config.yaml` there)")
                 + " (`config_from_base`), not from the pull request.")
    return Trusted(catalog=CatalogSource(config=cfg, reader=Reader(d, d) if d else None, releases=releases),
                   ignores=scope)


def _target(env: ActionEnv) -> Optional[list]:
    if not env.ocp_versions:
        return None
    from ..targets import parse_target
    from ..usage import Usage

    try:
        return parse_target(env.ocp_versions)
    except Usage as e:
        raise ActionError(f"input ocp_versions: {e}") from None


def run_name(path: str) -> str:
    """The name a run without a ``name`` input goes by: the part of the repository its
    ``path`` checks ("" for the whole repository, so a single run keeps the plain "olm-check")."""
    p = (path or ".").replace("\\", "/").strip()
    while p.startswith("./"):
        p = p[2:]
    p = p.strip("/")
    return "" if p in ("", ".") else p


def _baseline(res, root: str, ch: Changes, config: Optional[str], target, notes: list):
    """Each finding's state against the change's base (``checker.baseline``), in place and in
    the report; None, and a note, when the base cannot be read (every finding then counts)."""
    from ..baseline import BaselineError, apply, mark_report

    if not ch.base:
        notes.append("No baseline: the base commit is not in the checkout (`fetch-depth: 0` brings it), so every "
                     "finding counts as new.")
        return None
    try:
        bl = apply(res, root, ch.base, ch.changes, config_path=config, target=target)
    except BaselineError as e:
        notes.append(f"No baseline ({e}): every finding counts as new.")
        return None
    except Exception as e:  # a bug in the comparison must not cost the findings
        log(f"olm-check: the baseline failed: {type(e).__name__}: {e}")
        notes.append("No baseline (olm-check could not compare with the base): every finding counts as new.")
        return None
    mark_report(res, bl)
    return bl


def publish(env: ActionEnv, gh: Optional[GitHub], run: RunReport, ctx: PublishContext, changes_known: bool,
            rules: Mapping[str, Any]) -> None:
    """Put the run's report where people look, in design.md's order, each publisher on its own
    (``publish.publish_all``); what could not be made is said at the end of the job summary
    and in the log."""
    # 1. job summary, outputs, report files (no token needed)
    first = publish_all([JobSummary(env, rules)], run, ctx)
    # 2-4. the API publishers, each on its own: a refusal of one loses only that one
    publishers, late = choose(env, ctx, changes_known)
    late.notes[:0] = first.notes
    if gh is not None and not read_only(env):
        if env.pull is not None and (env.review_comments or env.summary_comment):
            ident = gh.identity()
            ctx.who.login = ident["login"] if ident else None
        if env.pull is not None and env.review_comments and changes_known:
            ctx.inline = inline_candidates(run.findings, ctx.right)[0]  # inline comments: not annotations too
        done = publish_all(publishers, run, ctx)
        late.notes += done.notes
        late.fallback = late.fallback or done.fallback
    # 5. the check run's findings as annotations of this step, when there is no check run
    if late.fallback:
        late.notes += publish_all([WorkflowCommands()], run, ctx).notes
    if late.notes:
        try:
            append_summary(env.summary_file, "".join(f"\n{n}\n" for n in late.notes))
        except OSError:
            pass
        for n in late.notes:
            log(f"olm-check: {n}")


def run_action(environ) -> int:
    from ..api import CheckError, check
    from ..roots import repo_root
    from ..rules import RULES

    env = ActionEnv.from_environ(environ)
    trust_workspace(env.workspace)
    scope_abs = os.path.abspath(env.workspace_path(env.path))
    if not os.path.exists(scope_abs):
        raise ActionError(f"input path: {env.path} does not exist in the workspace")
    ws_real = os.path.realpath(env.workspace)
    if os.path.commonpath([ws_real, os.path.realpath(scope_abs)]) != ws_real:
        raise ActionError(f"input path: {env.path} is outside the workspace; olm-check reads only the checked-out tree")
    root = repo_root([scope_abs])
    scope_rel = os.path.relpath(scope_abs, root).replace(os.sep, "/")
    target = _target(env)
    config = env.workspace_path(env.config) if env.config else None

    gh = GitHub(env.api_url, env.repository, env.token, log=log) if env.token and env.repository else None
    notes: list = []
    if env.pull is None and env.pull_number is not None:
        resolve_pull(env, gh, notes)
    if env.pull is not None and env.config_from_base:
        config = base_config(env, gh, root, config, notes)
    if env.pull is not None and env.event_name in ("pull_request_target", "workflow_run"):
        here = _git(root, "rev-parse", "HEAD")
        if here and here != env.pull.head_sha:
            notes.append(f"⚠️ The workspace holds {here[:12]}, not the pull request's head {env.pull.head_sha[:12]}: "
                         f"with `{env.event_name}`, check out the pull request's head commit (olm-check only reads it, "
                         "never runs it) or the base branch's files are what gets checked.")
    ch = find_changes(env, gh, root)
    notes += ch.notes
    trusted = base_trust(env, gh, root, ch, notes) if env.pull is not None and env.config_from_base else None
    if trusted is not None:
        notes.append("Inline ignores: only `# olm-check: ignore` comments on lines this pull request leaves as its "
                     "base has them count (`config_from_base`)" if ch.changes is not None else
                     "Inline ignores: none counts, the lines this pull request changes being unknown "
                     "(`config_from_base`).")
    if ch.changes is not None:
        a = affected(root, ch.changes, scope_rel)
        paths = [os.path.join(root, p) for p in a.paths]
        try:
            res = check(paths, config_path=config, profile=env.profile, fail_on=env.fail_on, target=target,
                        changes=ch.changes, root=root, trusted=trusted)
        except CheckError as e:
            raise ActionError(str(e)) from None
        notes.insert(0, f"Changed files: {len(ch.changes)}, from {ch.source}"
                        + (f"; {len(a.outside)} outside `{env.path}` not checked" if a.outside else "") + ".")
        _baseline(res, root, ch, config, target, notes)  # marks each finding's state in place
    else:
        try:
            res = check([scope_abs], config_path=config, profile=env.profile, fail_on=env.fail_on, target=target,
                        trusted=trusted)
        except CheckError as e:
            raise ActionError(str(e)) from None
        from ..targets import nothing_checked

        if nothing_checked(res):  # a green step that checked nothing: a mistyped `path` input
            raise ActionError(f"input path: nothing to check in {env.path}: no bundle (a directory with manifests/ and "
                              "metadata/), operator or CatalogSource manifest there")
    from ..baseline import gating
    from ..engine import exit_code as _exit_code

    findings = res.findings
    gate = gating(findings, env.fail_on_unchanged)  # what fail_on applies to: new and updated findings
    exit_code = _exit_code(gate, res.fail_on)
    # the verdict the summaries read: on what fail_on applies to
    run = replace(res.run, fail_on=res.fail_on, fail_on_unchanged=env.fail_on_unchanged)
    # each run owns its check run, summary and comments: by its name, else by what its path
    # checks inside the repository (a matrix over paths in one workflow: two runs never delete
    # or rewrite each other's). A path that is a checkout's root (`path: pr` of the fork-safe
    # workflow) is the whole repository: the plain "olm-check", as before.
    ctx = PublishContext(
        gh=gh, who=Who(name=env.name or run_name(scope_rel)), log=log, out=sys.stdout, head_sha=env.head_sha,
        pull=env.pull, details_url=env.run_url, right=ch.right, gate=gate, notes=notes,
        # paths in the summaries linked to the head's lines
        blob=f"{env.server_url}/{env.repository}/blob/{env.pull.head_sha}/" if env.pull is not None and env.repository else "",
        # the changed operators' upgrade graphs, drawn where reviewers look (a pull request's change)
        graphs=graphs_markdown(root, run, log) if ch.changes is not None else "")

    publish(env, gh, run, ctx, ch.changes is not None, RULES)
    # the terminal report in the log: text from the checked tree, inside a window in which
    # the runner acts on no workflow command
    from ..report import render_report

    sys.stdout.write(stop_commands(render_report("text", run, RULES)))
    sys.stdout.flush()
    return exit_code


def main(argv: Optional[list] = None, environ=None) -> int:
    environ = os.environ if environ is None else environ
    argv = list(sys.argv[1:] if argv is None else argv)
    if environ.get("GITHUB_ACTIONS") != "true" or argv:
        from ..cli import main as cli_main

        if not argv or argv[0] not in SUBCOMMANDS + ("-h", "--help", "--version"):
            argv = ["check", *argv]
        return cli_main(argv)
    try:
        return run_action(environ)
    except ActionError as e:
        print(workflow_command("error", str(e), {"title": "olm-check"}), flush=True)
        log(f"olm-check: {e}")
        return 2
    except Exception as e:  # last line of defence: a message, never a traceback
        if environ.get("OLM_CHECK_DEBUG"):
            raise
        print(workflow_command("error", f"internal error: {type(e).__name__}: {e} (please report it)",
                               {"title": "olm-check"}), flush=True)
        log(f"olm-check: internal error: {type(e).__name__}: {e} (set OLM_CHECK_DEBUG=1 for the traceback)")
        return 2
