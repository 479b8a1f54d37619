"""Did-you-mean for names people type: rule ids, profiles, options, OpenShift releases."""
from __future__ import annotations

import difflib
from typing import Iterable, NoReturn


def close(word: str, choices: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The ``n`` choices closest to ``word`` (difflib's ratio, at least ``cutoff``)."""
    return difflib.get_close_matches(str(word), sorted(set(choices)), n=n, cutoff=cutoff)


def did_you_mean(word: str, choices: Iterable[str], n: int = 3) -> str:
    """`` (did you mean 'a'?)`` / `` (did you mean 'a' or 'b'?)``, or "" when nothing is close."""
    got = close(word, choices, n)
    if not got:
        return ""
    if len(got) == 1:
        return f" (did you mean '{got[0]}'?)"
    return " (did you mean " + ", ".join(f"'{g}'" for g in got[:-1]) + f" or '{got[-1]}'?)"


import argparse  # noqa: E402
import re  # noqa: E402

_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse with did-you-mean: an invalid choice (a profile, a format, a subcommand) and an
    unknown option get the closest valid ones. Subcommand parsers are of this class too, so
    each reports its own usage."""

    def error(self, message: str) -> NoReturn:
        m = _CHOICE.search(message)
        if m:
            choices = [c.strip().strip("'\"") for c in m.group(2).split(",")]
            message += did_you_mean(m.group(1), choices)
        elif message.startswith("unrecognized arguments: "):
            options = [o for o in self._option_string_actions if o.startswith("--")]
            words = []
            for word in message[len("unrecognized arguments: "):].split():
                hint = ""
                if word.startswith("--") and len(word) > 3:
                    got = close(word.split("=", 1)[0], options, n=1, cutoff=0.75)
                    hint = f" (did you mean '{got[0]}'?)" if got else ""
                words.append(word + hint)
            message = "unrecognized arguments: " + " ".join(words)
        super().error(message)
