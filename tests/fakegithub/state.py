"""What the fake GitHub remembers: one repository, its pull requests and what was posted.

The objects here are plain data with ``to_json(site)`` methods that render them the way
GitHub's REST API does (``site`` knows the API and web base URLs). Tests build state
through :class:`~fakegithub.server.FakeGitHub` (``add_pull``, ``PullRequest.add_file``,
...) and read it back from the same objects (``fake.check_runs``, ``pr.review_comments``).
"""
from __future__ import annotations

import base64
import hashlib
import itertools
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Optional

from .diff import Patch, make_patch

_ids = itertools.count(1_000_001)


def next_id() -> int:
    """A fresh id, unique across every kind of object of every fake (like GitHub's)."""
    return next(_ids)


def node_id(prefix: str, number: int) -> str:
    return f"{prefix}_kwDO{base64.b64encode(str(number).encode()).decode().rstrip('=')}"


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fake_sha(*parts) -> str:
    return hashlib.sha1("\0".join(map(str, parts)).encode()).hexdigest()


def blob_sha(content: str) -> str:
    data = content.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Site:
    """Base URLs the fake answers with: its own API root and the web root it pretends."""

    api: str                      # e.g. http://127.0.0.1:PORT or .../api/v3
    web: str = "https://github.com"


@dataclass
class User:
    login: str
    id: int
    type: str = "User"            # "User" or "Bot"

    def to_json(self, site: Site) -> dict:
        api = f"{site.api}/users/{self.login}"
        html = (f"{site.web}/apps/{self.login[:-5]}" if self.login.endswith("[bot]")
                else f"{site.web}/{self.login}")
        return {
            "login": self.login, "id": self.id, "node_id": node_id("U", self.id),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{self.id}?v=4",
            "gravatar_id": "", "url": api, "html_url": html,
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs", "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "type": self.type, "user_view_type": "public", "site_admin": False,
        }


#: github-actions[bot], the author of everything a workflow's GITHUB_TOKEN posts.
ACTIONS_BOT = User("github-actions[bot]", 41898282, "Bot")


@dataclass
class Token:
    token: str
    user: User
    write: bool = True            # False: every write answers 403 (fork PR token)


@dataclass
class Repo:
    owner: User
    name: str
    id: int = field(default_factory=next_id)
    default_branch: str = "main"
    private: bool = False
    fork: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.owner.login}/{self.name}"

    def api_url(self, site: Site) -> str:
        return f"{site.api}/repos/{self.full_name}"

    def html_url(self, site: Site) -> str:
        return f"{site.web}/{self.full_name}"

    def to_json(self, site: Site) -> dict:
        api, html = self.api_url(site), self.html_url(site)
        out = {
            "id": self.id, "node_id": node_id("R", self.id), "name": self.name,
            "full_name": self.full_name, "owner": self.owner.to_json(site),
            "private": self.private, "html_url": html, "description": None,
            "fork": self.fork, "url": api, "default_branch": self.default_branch,
            "visibility": "private" if self.private else "public",
            "clone_url": f"{html}.git", "git_url": f"git://{html.split('://', 1)[-1]}.git",
            "ssh_url": f"git@{site.web.split('://', 1)[-1]}:{self.full_name}.git",
            "svn_url": html, "homepage": None, "language": None, "mirror_url": None,
            "license": None, "size": 1, "archived": False, "disabled": False,
            "forks": 0, "forks_count": 0, "open_issues": 0, "open_issues_count": 0,
            "stargazers_count": 0, "watchers": 0, "watchers_count": 0,
            "has_issues": True, "has_projects": True, "has_wiki": True,
            "has_pages": False, "has_downloads": True, "is_template": False,
            "topics": [], "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z", "pushed_at": "2024-01-01T00:00:00Z",
            "permissions": {"admin": False, "maintain": False, "push": True,
                            "triage": True, "pull": True},
        }
        for key, tail in [
            ("archive_url", "/{archive_format}{/ref}"), ("assignees_url", "/assignees{/user}"),
            ("blobs_url", "/git/blobs{/sha}"), ("branches_url", "/branches{/branch}"),
            ("collaborators_url", "/collaborators{/collaborator}"),
            ("comments_url", "/comments{/number}"), ("commits_url", "/commits{/sha}"),
            ("compare_url", "/compare/{base}...{head}"), ("contents_url", "/contents/{+path}"),
            ("contributors_url", "/contributors"), ("deployments_url", "/deployments"),
            ("downloads_url", "/downloads"), ("events_url", "/events"),
            ("forks_url", "/forks"), ("git_commits_url", "/git/commits{/sha}"),
            ("git_refs_url", "/git/refs{/sha}"), ("git_tags_url", "/git/tags{/sha}"),
            ("hooks_url", "/hooks"), ("issue_comment_url", "/issues/comments{/number}"),
            ("issue_events_url", "/issues/events{/number}"), ("issues_url", "/issues{/number}"),
            ("keys_url", "/keys{/key_id}"), ("labels_url", "/labels{/name}"),
            ("languages_url", "/languages"), ("merges_url", "/merges"),
            ("milestones_url", "/milestones{/number}"),
            ("notifications_url", "/notifications{?since,all,participating}"),
            ("pulls_url", "/pulls{/number}"), ("releases_url", "/releases{/id}"),
            ("stargazers_url", "/stargazers"), ("statuses_url", "/statuses/{sha}"),
            ("subscribers_url", "/subscribers"), ("subscription_url", "/subscription"),
            ("tags_url", "/tags"), ("teams_url", "/teams"), ("trees_url", "/git/trees{/sha}"),
        ]:
            out[key] = api + tail
        return out


@dataclass
class PullFile:
    """One entry of a PR's files: GitHub's "diff entry"."""

    filename: str
    status: str = "modified"      # added, removed, modified, renamed, copied, changed, unchanged
    patch: Optional[str] = None   # None: GitHub sends no patch (binary or too large)
    previous_filename: Optional[str] = None
    sha: Optional[str] = None
    parsed: Patch = field(init=False, repr=False)

    def __post_init__(self):
        self.parsed = Patch(self.patch)
        if self.sha is None:
            self.sha = fake_sha("blob", self.filename, self.patch)

    @property
    def additions(self) -> int:
        return self.parsed.additions

    @property
    def deletions(self) -> int:
        return self.parsed.deletions

    def to_json(self, site: Site, repo: Repo, ref: str) -> dict:
        path = self.filename
        out = {
            "sha": self.sha, "filename": path, "status": self.status,
            "additions": self.additions, "deletions": self.deletions,
            "changes": self.additions + self.deletions,
            "blob_url": f"{repo.html_url(site)}/blob/{ref}/{path}",
            "raw_url": f"{repo.html_url(site)}/raw/{ref}/{path}",
            "contents_url": f"{repo.api_url(site)}/contents/{path}?ref={ref}",
        }
        if self.patch is not None:
            out["patch"] = self.patch
        if self.previous_filename:
            out["previous_filename"] = self.previous_filename
        return out


@dataclass
class Commit:
    sha: str
    parents: list = field(default_factory=list)
    files: list = field(default_factory=list)          # PullFile
    message: str = "Commit"
    author: Optional[User] = None

    def to_json(self, site: Site, repo: Repo, with_files: bool = True,
                files: Optional[list] = None) -> dict:
        api = repo.api_url(site)
        person = {"name": self.author.login if self.author else "A U Thor",
                  "email": "author@example.com", "date": "2024-01-01T00:00:00Z"}
        out = {
            "sha": self.sha, "node_id": node_id("C", int(self.sha[:8], 16)),
            "url": f"{api}/commits/{self.sha}",
            "html_url": f"{repo.html_url(site)}/commit/{self.sha}",
            "comments_url": f"{api}/commits/{self.sha}/comments",
            "commit": {
                "url": f"{api}/git/commits/{self.sha}", "author": person,
                "committer": person, "message": self.message, "comment_count": 0,
                "tree": {"sha": fake_sha("tree", self.sha), "url": f"{api}/git/trees/x"},
                "verification": {"verified": False, "reason": "unsigned", "payload": None,
                                 "signature": None, "verified_at": None},
            },
            "author": self.author.to_json(site) if self.author else None,
            "committer": self.author.to_json(site) if self.author else None,
            "parents": [{"sha": p, "url": f"{api}/commits/{p}",
                         "html_url": f"{repo.html_url(site)}/commit/{p}"}
                        for p in self.parents],
        }
        if with_files:
            shown = self.files if files is None else files
            adds = sum(f.additions for f in self.files)
            dels = sum(f.deletions for f in self.files)
            out["stats"] = {"additions": adds, "deletions": dels, "total": adds + dels}
            out["files"] = [f.to_json(site, repo, self.sha) for f in shown]
        return out


@dataclass
class Annotation:
    path: str
    start_line: int
    end_line: int
    annotation_level: str
    message: str
    start_column: Optional[int] = None
    end_column: Optional[int] = None
    title: Optional[str] = None
    raw_details: Optional[str] = None

    def to_json(self, site: Site, repo: Repo, head_sha: str) -> dict:
        return {
            "path": self.path,
            "blob_href": f"{repo.html_url(site)}/blob/{head_sha}/{self.path}",
            "start_line": self.start_line, "end_line": self.end_line,
            "start_column": self.start_column, "end_column": self.end_column,
            "annotation_level": self.annotation_level, "title": self.title,
            "message": self.message, "raw_details": self.raw_details,
        }


@dataclass
class CheckRun:
    id: int
    name: str
    head_sha: str
    app_owner: User
    status: str = "queued"
    conclusion: Optional[str] = None
    started_at: Optional[str] = None
    completed_at: Optional[str] = None
    details_url: Optional[str] = None
    external_id: str = ""
    output: dict = field(default_factory=lambda: {"title": None, "summary": None,
                                                  "text": None})
    annotations: list = field(default_factory=list)   # Annotation, appended by updates
    updates: int = 0                                   # PATCH requests applied
    app_slug: str = "github-actions"                   # the App whose token created it

    def to_json(self, site: Site, repo: Repo, pulls: list) -> dict:
        api = repo.api_url(site)
        html = f"{repo.html_url(site)}/runs/{self.id}"
        suite_id = self.id + 500_000_000
        app = {
            "id": 15368 if self.app_slug == "github-actions" else 900000 + len(self.app_slug),
            "slug": self.app_slug, "node_id": "MDM6QXBwMTUzNjg=",
            "client_id": "Iv1.00000000000000", "owner": self.app_owner.to_json(site),
            "name": "GitHub Actions" if self.app_slug == "github-actions" else self.app_slug,
            "description": "Automate your workflow from idea to"
            " production", "external_url": "https://help.github.com/en/actions",
            "html_url": f"{site.web}/apps/{self.app_slug}",
            "created_at": "2018-07-30T09:30:17Z", "updated_at": "2024-04-10T20:33:16Z",
            "permissions": {"checks": "write", "pull_requests": "write",
                            "issues": "write", "contents": "read", "metadata": "read"},
            "events": ["check_run", "pull_request", "push"],
        }
        return {
            "id": self.id, "node_id": node_id("CR", self.id), "head_sha": self.head_sha,
            "external_id": self.external_id, "url": f"{api}/check-runs/{self.id}",
            "html_url": html, "details_url": self.details_url or html,
            "status": self.status, "conclusion": self.conclusion,
            "started_at": self.started_at, "completed_at": self.completed_at,
            "output": {
                "title": self.output.get("title"), "summary": self.output.get("summary"),
                "text": self.output.get("text"),
                "annotations_count": len(self.annotations),
                "annotations_url": f"{api}/check-runs/{self.id}/annotations",
            },
            "name": self.name,
            "check_suite": {"id": suite_id},
            "app": app,
            "pull_requests": [p.minimal_json(site, repo) for p in pulls],
        }


def _reactions(url: str) -> dict:
    return {"url": f"{url}/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0,
            "confused": 0, "heart": 0, "hooray": 0, "eyes": 0, "rocket": 0}


def association(user: User, repo: Repo) -> str:
    if user.login == repo.owner.login:
        return "OWNER"
    return "NONE" if user.type == "Bot" else "CONTRIBUTOR"


@dataclass
class IssueComment:
    id: int
    issue_number: int
    body: str
    user: User
    created_at: str = field(default_factory=now)
    updated_at: str = ""

    def __post_init__(self):
        self.updated_at = self.updated_at or self.created_at

    def to_json(self, site: Site, repo: Repo) -> dict:
        api = f"{repo.api_url(site)}/issues/comments/{self.id}"
        return {
            "id": self.id, "node_id": node_id("IC", self.id), "url": api,
            "html_url": f"{repo.html_url(site)}/pull/{self.issue_number}"
                        f"#issuecomment-{self.id}",
            "issue_url": f"{repo.api_url(site)}/issues/{self.issue_number}",
            "body": self.body, "user": self.user.to_json(site),
            "created_at": self.created_at, "updated_at": self.updated_at,
            "author_association": association(self.user, repo),
            "performed_via_github_app": None, "reactions": _reactions(api),
        }


@dataclass
class Review:
    id: int
    pull_number: int
    user: User
    body: str
    state: str                      # PENDING, COMMENTED, APPROVED, CHANGES_REQUESTED
    commit_id: str
    submitted_at: Optional[str] = None

    def to_json(self, site: Site, repo: Repo) -> dict:
        html = f"{repo.html_url(site)}/pull/{self.pull_number}#pullrequestreview-{self.id}"
        pr_api = f"{repo.api_url(site)}/pulls/{self.pull_number}"
        out = {
            "id": self.id, "node_id": node_id("PRR", self.id),
            "user": self.user.to_json(site), "body": self.body, "state": self.state,
            "html_url": html, "pull_request_url": pr_api,
            "author_association": association(self.user, repo),
            "_links": {"html": {"href": html}, "pull_request": {"href": pr_api}},
            "commit_id": self.commit_id,
        }
        if self.submitted_at:
            out["submitted_at"] = self.submitted_at
        return out


@dataclass
class ReviewComment:
    id: int
    pull_number: int
    review_id: int
    user: User
    body: str
    path: str
    commit_id: str
    subject_type: str = "line"          # "line" or "file"
    line: Optional[int] = None
    side: Optional[str] = None
    start_line: Optional[int] = None
    start_side: Optional[str] = None
    position: Optional[int] = None
    diff_hunk: str = ""
    in_reply_to_id: Optional[int] = None
    created_at: str = field(default_factory=now)
    updated_at: str = ""
    outdated: bool = False              # its line changed since: GitHub answers line null

    def __post_init__(self):
        self.updated_at = self.updated_at or self.created_at

    def to_json(self, site: Site, repo: Repo) -> dict:
        api = f"{repo.api_url(site)}/pulls/comments/{self.id}"
        html = f"{repo.html_url(site)}/pull/{self.pull_number}#discussion_r{self.id}"
        pr_api = f"{repo.api_url(site)}/pulls/{self.pull_number}"
        out = {
            "url": api, "id": self.id, "node_id": node_id("PRRC", self.id),
            "pull_request_review_id": self.review_id, "diff_hunk": self.diff_hunk,
            "path": self.path, "position": None if self.outdated else self.position,
            "original_position": self.position, "commit_id": self.commit_id,
            "original_commit_id": self.commit_id, "user": self.user.to_json(site),
            "body": self.body, "created_at": self.created_at,
            "updated_at": self.updated_at, "html_url": html, "pull_request_url": pr_api,
            "author_association": association(self.user, repo),
            "_links": {"self": {"href": api}, "html": {"href": html},
                       "pull_request": {"href": pr_api}},
            "start_line": None if self.outdated else self.start_line,
            "original_start_line": self.start_line,
            "start_side": self.start_side, "line": None if self.outdated else self.line,
            "original_line": self.line,
            "side": self.side, "subject_type": self.subject_type,
            "reactions": _reactions(api),
        }
        if self.in_reply_to_id is not None:
            out["in_reply_to_id"] = self.in_reply_to_id
        return out


@dataclass
class PullRequest:
    """A pull request: its refs, its files (with patches) and what was posted on it."""

    number: int
    repo: Repo
    head_sha: str
    base_sha: str
    user: User
    head_ref: str = "feature"
    base_ref: str = "main"
    fork: bool = False                  # head repository is a fork
    title: str = "Update operator bundle"
    body: Optional[str] = None
    state: str = "open"
    draft: bool = False
    merge_commit_sha: str = ""
    files: list = field(default_factory=list)
    head_repo: Optional[Repo] = None

    def __post_init__(self):
        self.merge_commit_sha = self.merge_commit_sha or fake_sha("merge", self.head_sha,
                                                                  self.base_sha)
        if self.head_repo is None:
            self.head_repo = (Repo(self.user, self.repo.name, fork=True) if self.fork
                              else self.repo)

    # --- building the diff ---------------------------------------------------------
    def add_file(self, filename: str, patch: Optional[str] = None, *,
                 base: Optional[str] = None, head: Optional[str] = None,
                 status: Optional[str] = None, previous_filename: Optional[str] = None,
                 binary: bool = False) -> PullFile:
        """Add a changed file.

        Give either ``patch`` (GitHub's patch text: hunks, no ``---``/``+++``), or the
        file's ``base`` and/or ``head`` contents (None = absent) and the patch is made
        with difflib. ``status`` defaults to added/removed/modified (renamed when
        ``previous_filename`` is given). ``binary=True`` sends no patch at all.
        """
        if patch is None and not binary and (base is not None or head is not None):
            patch = make_patch(base, head)
        if status is None:
            if previous_filename:
                status = "renamed"
            elif base is None and head is not None:
                status = "added"
            elif head is None and base is not None:
                status = "removed"
            elif patch and patch.startswith("@@ -0,0 "):
                status = "added"
            else:
                status = "modified"
        sha = blob_sha(head) if head is not None else None
        pf = PullFile(filename, status, None if binary else patch, previous_filename, sha)
        self.files.append(pf)
        return pf

    def file(self, filename: str) -> Optional[PullFile]:
        for pf in self.files:
            if pf.filename == filename:
                return pf
        return None

    # --- rendering -----------------------------------------------------------------
    def minimal_json(self, site: Site, repo: Repo) -> dict:
        """The short form inside a check run's ``pull_requests``."""
        url = f"{repo.api_url(site)}/pulls/{self.number}"
        return {
            "id": self.id, "number": self.number, "url": url,
            "head": {"ref": self.head_ref, "sha": self.head_sha,
                     "repo": {"id": self.head_repo.id, "name": self.head_repo.name,
                              "url": self.head_repo.api_url(site)}},
            "base": {"ref": self.base_ref, "sha": self.base_sha,
                     "repo": {"id": repo.id, "name": repo.name, "url": repo.api_url(site)}},
        }

    @property
    def id(self) -> int:
        return self.repo.id * 10_000 + self.number

    def to_json(self, site: Site, comments: int = 0, review_comments: int = 0) -> dict:
        repo = self.repo
        api = f"{repo.api_url(site)}/pulls/{self.number}"
        html = f"{repo.html_url(site)}/pull/{self.number}"
        issue = f"{repo.api_url(site)}/issues/{self.number}"
        adds = sum(f.additions for f in self.files)
        dels = sum(f.deletions for f in self.files)
        head_owner = self.head_repo.owner
        links = {
            "self": {"href": api}, "html": {"href": html}, "issue": {"href": issue},
            "comments": {"href": f"{issue}/comments"},
            "review_comments": {"href": f"{api}/comments"},
            "review_comment": {"href": f"{repo.api_url(site)}/pulls/comments{{/number}}"},
            "commits": {"href": f"{api}/commits"},
            "statuses": {"href": f"{repo.api_url(site)}/statuses/{self.head_sha}"},
        }
        return {
            "url": api, "id": self.id, "node_id": node_id("PR", self.id),
            "html_url": html, "diff_url": f"{html}.diff", "patch_url": f"{html}.patch",
            "issue_url": issue, "commits_url": f"{api}/commits",
            "review_comments_url": f"{api}/comments",
            "review_comment_url": f"{repo.api_url(site)}/pulls/comments{{/number}}",
            "comments_url": f"{issue}/comments",
            "statuses_url": f"{repo.api_url(site)}/statuses/{self.head_sha}",
            "number": self.number, "state": self.state, "locked": False,
            "title": self.title, "user": self.user.to_json(site), "body": self.body,
            "labels": [], "milestone": None, "active_lock_reason": None,
            "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z",
            "closed_at": None, "merged_at": None,
            "merge_commit_sha": self.merge_commit_sha,
            "assignee": None, "assignees": [], "requested_reviewers": [],
            "requested_teams": [],
            "head": {"label": f"{head_owner.login}:{self.head_ref}", "ref": self.head_ref,
                     "sha": self.head_sha, "user": head_owner.to_json(site),
                     "repo": self.head_repo.to_json(site)},
            "base": {"label": f"{repo.owner.login}:{self.base_ref}", "ref": self.base_ref,
                     "sha": self.base_sha, "user": repo.owner.to_json(site),
                     "repo": repo.to_json(site)},
            "_links": links, "author_association": association(self.user, repo),
            "auto_merge": None, "draft": self.draft, "merged": False,
            "mergeable": True, "rebaseable": True, "mergeable_state": "clean",
            "merged_by": None, "comments": comments, "review_comments": review_comments,
            "maintainer_can_modify": False, "commits": 1, "additions": adds,
            "deletions": dels, "changed_files": len(self.files),
        }
