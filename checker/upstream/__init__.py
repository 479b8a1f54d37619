"""Ports of upstream validators and parsers, each citing the file it follows: the Docker image
reference grammar, Go's net/url and net/mail parsers, Kubernetes names, blang/semver. They
import nothing of the checker: rules and the core call them."""
