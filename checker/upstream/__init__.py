"""Ports of upstream code whose behaviour olm-check must match exactly: the Docker image reference
grammar, Go's net/url and net/mail parsers, Kubernetes names, blang/semver. Each module says at
its top which upstream source files (repository, tag, path) it ports, so a change upstream can
be followed. Pure functions, no I/O; nothing here imports the rest of the checker."""
