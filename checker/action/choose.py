"""Which of the Action's publishers run (``publish.Publisher``): with no token, or on a fork's
``pull_request`` (a read-only token), none that writes to the API (the check run's findings
then go to workflow-command annotations); otherwise the check run (on the head commit), the
review (a pull request whose changes are known), the summary comment (a pull request), each
as the inputs ask, and last the check run's leftover annotations."""
from __future__ import annotations

from .checkrun import CheckRun, LeftoverAnnotations
from .env import ActionEnv
from .publish import PublishContext, Publisher, PublishResult
from .review import Review
from .sticky import SummaryComment


def read_only(env: ActionEnv) -> bool:
    """A fork's ``pull_request`` run: its token may write nothing."""
    return env.pull is not None and env.event_name == "pull_request" and env.pull.from_fork


def choose(env: ActionEnv, ctx: PublishContext, changes_known: bool) -> tuple[list[Publisher], PublishResult]:
    """The API publishers for this run, by token, event and inputs, and what is said (and
    whether the fallback is needed) of those that cannot run at all."""
    skipped = PublishResult()
    if ctx.gh is None:
        if env.pull is not None:
            skipped.notes.append("No token: nothing was posted to the pull request (set `github_token`).")
        skipped.fallback = env.check_run
        return [], skipped
    pull = env.pull
    if read_only(env) and pull is not None:
        skipped.notes.append(f"This pull request comes from a fork ({pull.head_repo}): under `pull_request` its "
                             "token is read-only, so olm-check posted nothing to it. The README's fork-safe workflow "
                             "(`workflow_run`) posts the check run and the comments.")
        skipped.fallback = True
        return [], skipped
    chosen: list[Publisher] = []
    if env.check_run and env.head_sha:
        chosen.append(CheckRun())
    if env.pull is not None and env.review_comments and changes_known:
        chosen.append(Review())
    if env.pull is not None and env.summary_comment:
        chosen.append(SummaryComment())
    if chosen and isinstance(chosen[0], CheckRun):
        chosen.append(LeftoverAnnotations())  # last: what the review could not place inline
    return chosen, skipped
