"""Where a rule's page is: its anchor in docs/rules.md (text --explain, JSON ``help_uri``,
SARIF ``helpUri``, the Action's comments)."""
from __future__ import annotations

from typing import Optional

from .. import INFORMATION_URI

RULES_DOC = f"{INFORMATION_URI}/blob/main/docs/rules.md"


def help_uri(rule_id: str) -> Optional[str]:
    """The rule's page: its anchor in docs/rules.md (None for ``internal-error``, a bug in
    olm-check, which has no rule page)."""
    return None if rule_id == "internal-error" else f"{RULES_DOC}#{rule_id}"
