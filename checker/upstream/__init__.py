"""Ports of upstream code whose behaviour olm-check must match exactly: each module says at its
top which upstream source files (repository, tag, path) it ports, so a change upstream can be
followed. Pure functions, no I/O; nothing here imports the rest of the checker."""
