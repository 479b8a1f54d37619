"""Webhook payloads for ``GITHUB_EVENT_PATH``: ``pull_request`` and ``push``.

Every builder returns a payload that validates against GitHub's published webhook
schema (vendored in ``schema/webhooks.json``): realistic values for what the action
reads (numbers, SHAs, refs, repositories, fork flag), schema-conforming placeholders
for the rest. Builders take the fake's state objects, so the event agrees with what the
fake server answers::

    payload = fake.pull_request_event(1, "synchronize")     # or events.pull_request_event
    path = write_event(tmp_path / "event.json", payload)

Without a running server use a ``FakeGitHub()`` that was never started: its URLs are
then ``https://api.github.com`` and ``https://github.com``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from . import contract
from .state import PullRequest, Repo, Site, User, fake_sha

PULL_REQUEST_ACTIONS = ("opened", "synchronize", "reopened")


def validate(name: str, payload: dict) -> list:
    """Schema errors of ``payload`` as event ``name`` (``pull_request.opened``, ``push``)."""
    return contract.webhooks().errors(name, payload)


def assert_valid(name: str, payload: dict) -> None:
    errors = validate(name, payload)
    if errors:
        raise AssertionError(f"{name} payload breaks the webhook schema:\n  "
                             + "\n  ".join(errors[:20]))


def _finish(name: str, payload: dict) -> dict:
    hooks = contract.webhooks()
    payload = contract.conform(payload, hooks.schema(name), hooks.defs)
    assert_valid(name, payload)
    return payload


def pull_request_event(pr: PullRequest, action: str = "opened", *,
                       site: Optional[Site] = None, sender: Optional[User] = None,
                       before: Optional[str] = None) -> dict:
    """The ``pull_request`` event ``action`` (opened, synchronize, reopened) for ``pr``.

    ``synchronize`` carries ``before`` (the previous head; made up when not given) and
    ``after`` (the PR's head SHA).
    """
    if action not in PULL_REQUEST_ACTIONS:
        raise ValueError(f"no vendored schema for pull_request.{action}")
    site = site or Site("https://api.github.com")
    pull = pr.to_json(site)
    # Webhook payloads do not compute mergeability synchronously.
    pull.update(mergeable=None, rebaseable=None, mergeable_state="unknown",
                merge_commit_sha=None if action == "opened" else pull["merge_commit_sha"])
    payload = {
        "action": action,
        "number": pr.number,
        "pull_request": pull,
        "repository": pr.repo.to_json(site),
        "sender": (sender or pr.user).to_json(site),
    }
    if action == "synchronize":
        payload["before"] = before or fake_sha("previous-head", pr.head_sha)
        payload["after"] = pr.head_sha
    return _finish(f"pull_request.{action}", payload)


def push_event(repo: Repo, *, site: Optional[Site] = None, before: Optional[str] = None,
               after: Optional[str] = None, ref: Optional[str] = None,
               commits: Optional[list] = None, pusher: Optional[User] = None,
               forced: bool = False, created: bool = False, deleted: bool = False) -> dict:
    """A ``push`` event on ``ref`` (default branch by default) from ``before`` to ``after``.

    ``commits``: dicts with optional ``id``, ``message``, ``added``, ``removed``,
    ``modified`` (lists of paths); one commit touching nothing when not given.
    """
    site = site or Site("https://api.github.com")
    before = before or fake_sha("before")
    after = after or fake_sha("after")
    ref = ref or f"refs/heads/{repo.default_branch}"
    pusher = pusher or User("contributor", 1001)
    person = {"name": pusher.login, "email": f"{pusher.login}@users.noreply.github.com",
              "username": pusher.login}
    html = repo.html_url(site)
    specs = commits if commits is not None else [{"id": after}]
    rendered = []
    for i, spec in enumerate(specs):
        sha = spec.get("id") or fake_sha("push-commit", after, i)
        rendered.append({
            "id": sha, "tree_id": fake_sha("tree", sha), "distinct": True,
            "message": spec.get("message", "Update bundle"),
            "timestamp": "2024-01-01T00:00:00Z", "url": f"{html}/commit/{sha}",
            "author": person, "committer": person,
            "added": list(spec.get("added", [])), "removed": list(spec.get("removed", [])),
            "modified": list(spec.get("modified", [])),
        })
    repository = repo.to_json(site)
    repository.update(created_at=1577836800, pushed_at=1704067200)  # push: epoch seconds
    payload = {
        "ref": ref, "before": before, "after": after, "base_ref": None,
        "created": created, "deleted": deleted, "forced": forced,
        "compare": f"{html}/compare/{before[:12]}...{after[:12]}",
        "commits": rendered, "head_commit": rendered[-1] if rendered else None,
        "repository": repository,
        "pusher": {"name": pusher.login, "email": person["email"]},
        "sender": pusher.to_json(site),
    }
    return _finish("push", payload)


def write_event(path, payload: dict) -> Path:
    """Write ``payload`` as the JSON file ``GITHUB_EVENT_PATH`` points at."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return path
