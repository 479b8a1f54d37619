#!/usr/bin/env python3
"""The action's entrypoint (Dockerfile ENTRYPOINT): thin on purpose.

In GitHub Actions (GITHUB_ACTIONS=true, no arguments) it reads the run's environment and
event and runs the action (checker/action); anywhere else its arguments are olm-check's
command line, `check` by default: `docker run --rm -v "$PWD:/work" IMAGE bundle`.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.isdir(os.path.join(HERE, "checker")) and HERE not in sys.path:
    sys.path.insert(0, HERE)  # a source checkout: use the package beside this file

from checker.action import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
