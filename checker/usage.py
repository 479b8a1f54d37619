"""The command line's usage error, in a module of its own so that the subcommands
(``upgradeable``, the Action) and ``cli`` import it without importing each other."""


class Usage(Exception):
    """A command-line mistake: reported on stderr with exit code 2, never a traceback."""
