"""The GitHub Actions environment, read once: inputs, paths, the event, the pull request.

Every path comes from the environment (``GITHUB_WORKSPACE``, ``GITHUB_EVENT_PATH``,
``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``); nothing assumes ``/github/workspace``.
The token is read from ``INPUT_GITHUB_TOKEN`` (what a Docker action receives; the runner
passes no ``GITHUB_TOKEN`` into the container), falling back to ``GITHUB_TOKEN`` for local
runs. It is kept out of ``repr`` so it cannot reach a log by accident.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Optional

ZERO_SHA = "0" * 40
PR_EVENTS = ("pull_request", "pull_request_target")


class ActionError(Exception):
    """A usage or environment problem (exit 2): a bad input, an unreadable event file."""


def _bool(value: Optional[str], name: str, default: bool) -> bool:
    if value is None or value.strip() == "":
        return default
    v = value.strip().lower()
    if v in ("true", "yes", "1", "on"):
        return True
    if v in ("false", "no", "0", "off"):
        return False
    raise ActionError(f"input {name}: expected true or false, got '{value}'")


@dataclass
class PullRequest:
    number: int
    head_sha: str
    base_sha: str
    head_repo: Optional[str] = None
    base_repo: Optional[str] = None
    changed_files: Optional[int] = None

    @property
    def from_fork(self) -> bool:
        """The head repository is not the base repository (GitHub answers ``head.repo: null``
        when the fork has been deleted: still not the base)."""
        return bool(self.base_repo and (self.head_repo or "").lower() != self.base_repo.lower())


@dataclass
class ActionEnv:
    workspace: str
    event_name: str = ""
    event: dict = field(default_factory=dict)
    repository: str = ""
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    sha: str = ""
    run_url: Optional[str] = None
    token: str = field(default="", repr=False)
    path: str = "."
    ocp_versions: Optional[str] = None
    profile: Optional[str] = None
    fail_on: Optional[str] = None
    fail_on_unchanged: bool = False  # in a pull request: findings its base already had fail the run too
    config: Optional[str] = None
    review_comments: bool = True
    check_run: bool = True
    summary_comment: bool = True
    sarif_file: Optional[str] = None
    report_file: str = "olm-check-report.json"
    output_file: Optional[str] = None
    summary_file: Optional[str] = None
    pull: Optional[PullRequest] = None
    push_before: Optional[str] = None
    push_after: Optional[str] = None
    pull_number: Optional[int] = None  # workflow_run: the PR to report on (input or event)
    run_head_sha: Optional[str] = None  # workflow_run: the commit the triggering run checked
    run_head_repo: Optional[str] = None  # workflow_run: the repository that commit is from
    name: str = ""  # namespaces the check run, the markers and the fingerprints
    config_from_base: bool = False  # read the config file from the base commit

    @classmethod
    def from_environ(cls, environ) -> "ActionEnv":
        def inp(name: str) -> Optional[str]:
            v = environ.get(f"INPUT_{name.upper()}")
            return v if v is not None and v.strip() != "" else None

        workspace = environ.get("GITHUB_WORKSPACE") or os.getcwd()
        env = cls(workspace=os.path.abspath(workspace))
        env.event_name = environ.get("GITHUB_EVENT_NAME", "")
        env.repository = environ.get("GITHUB_REPOSITORY", "")
        env.api_url = (environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
        env.server_url = (environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
        env.sha = environ.get("GITHUB_SHA", "")
        if env.repository and environ.get("GITHUB_RUN_ID"):
            env.run_url = f"{env.server_url}/{env.repository}/actions/runs/{environ['GITHUB_RUN_ID']}"
        env.token = inp("github_token") or environ.get("GITHUB_TOKEN") or ""
        env.path = inp("path") or "."
        env.ocp_versions = inp("ocp_versions")
        env.profile = inp("profile")
        env.fail_on = inp("fail_on")
        env.fail_on_unchanged = _bool(environ.get("INPUT_FAIL_ON_UNCHANGED"), "fail_on_unchanged", False)
        env.config = inp("config")
        env.review_comments = _bool(environ.get("INPUT_REVIEW_COMMENTS"), "review_comments", True)
        env.check_run = _bool(environ.get("INPUT_CHECK_RUN"), "check_run", True)
        env.summary_comment = _bool(environ.get("INPUT_SUMMARY_COMMENT"), "summary_comment", True)
        env.sarif_file = inp("sarif_file")
        env.report_file = inp("report_file") or "olm-check-report.json"
        env.name = (inp("name") or "").strip()
        if any(ord(ch) < 32 for ch in env.name) or len(env.name) > 100:
            raise ActionError("input name: one line of at most 100 characters")
        env.config_from_base = _bool(environ.get("INPUT_CONFIG_FROM_BASE"), "config_from_base",
                                     env.event_name in ("pull_request_target", "workflow_run"))
        number = inp("pull_request")
        if number is not None:
            if not number.strip().isdigit():
                raise ActionError(f"input pull_request: '{number}' is not a pull request number")
            env.pull_number = int(number.strip())
        env.output_file = environ.get("GITHUB_OUTPUT") or None
        env.summary_file = environ.get("GITHUB_STEP_SUMMARY") or None
        if env.profile and env.profile not in ("community", "certified", "marketplace", "operatorhub", "minimal"):
            raise ActionError(f"input profile: '{env.profile}' is not one of community, certified, marketplace, operatorhub, minimal")
        if env.fail_on and env.fail_on not in ("error", "warning", "info", "never"):
            raise ActionError(f"input fail_on: '{env.fail_on}' is not one of error, warning, info, never")
        event_path = environ.get("GITHUB_EVENT_PATH")
        if event_path:
            try:
                with open(event_path, encoding="utf-8") as fh:
                    data = json.load(fh)
            except (OSError, ValueError) as e:
                raise ActionError(f"the event file {event_path} cannot be read: {e}") from None
            env.event = data if isinstance(data, dict) else {}
        env._read_event()
        return env

    def _read_event(self) -> None:
        ev = self.event
        if self.event_name in PR_EVENTS and isinstance(ev.get("pull_request"), dict):
            pr = ev["pull_request"]
            head, base = pr.get("head") or {}, pr.get("base") or {}
            number = pr.get("number") or ev.get("number")
            if isinstance(number, int) and isinstance(head.get("sha"), str) and isinstance(base.get("sha"), str):
                hr = (head.get("repo") or {}).get("full_name") if isinstance(head.get("repo"), dict) else None
                br = (base.get("repo") or {}).get("full_name") if isinstance(base.get("repo"), dict) else None
                cf = pr.get("changed_files")
                self.pull = PullRequest(number, head["sha"], base["sha"], hr, br, cf if isinstance(cf, int) else None)
        elif self.event_name == "workflow_run" and isinstance(ev.get("workflow_run"), dict):
            wr = ev["workflow_run"]
            self.run_head_sha = wr.get("head_sha") if isinstance(wr.get("head_sha"), str) else None
            hr = wr.get("head_repository")
            if isinstance(hr, dict) and isinstance(hr.get("full_name"), str):
                self.run_head_repo = hr["full_name"]
            prs = [p for p in wr.get("pull_requests") or [] if isinstance(p, dict)]
            if self.pull_number is None and prs and isinstance(prs[0].get("number"), int):
                self.pull_number = prs[0]["number"]  # empty for pull requests from forks
        elif self.event_name == "push":
            b, a = ev.get("before"), ev.get("after")
            self.push_before = b if isinstance(b, str) and b != ZERO_SHA else None
            self.push_after = a if isinstance(a, str) and a != ZERO_SHA else None

    @property
    def head_sha(self) -> str:
        """The commit to report on: the PR head (``GITHUB_SHA`` is a merge commit for
        pull_request and the base for pull_request_target), else the pushed commit."""
        if self.pull is not None:
            return self.pull.head_sha
        return self.push_after or self.run_head_sha or self.sha

    def workspace_path(self, rel: str) -> str:
        return rel if os.path.isabs(rel) else os.path.join(self.workspace, rel)
