"""The names callers imported from the one module that used to hold every reporter of the
Action. The publishers are now ``publish.Publisher`` implementations, one module each:

1. ``jobsummary``: the job summary, step outputs, JSON report, SARIF (no token needed);
2. ``checkrun``: the check run ``olm-check`` (``olm-check (NAME)``) on the head commit,
   created completed, every finding an annotation (50 per request);
3. ``review``: one review with inline comments on RIGHT-side diff lines;
4. ``sticky``: one summary comment, found by its marker and author, updated in place;
5. ``workflow_commands``: when the check run cannot be posted, workflow-command annotations
   for the most severe findings.

``publish.publish_all`` runs them, each on its own; ``choose.choose`` picks them by token,
event and inputs.
"""
from __future__ import annotations

from .common import MAX_STEP_SUMMARY, Who, fit, summary_markdown, utf8_len  # noqa: F401
from .review import comment_body, review  # noqa: F401
