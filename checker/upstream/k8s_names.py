"""Kubernetes names: DNS-1123 labels and subdomains, as
https://github.com/kubernetes/apimachinery/blob/master/pkg/util/validation/validation.go
(IsDNS1123Label, IsDNS1123Subdomain) defines them."""
from __future__ import annotations

import re
from typing import Optional

DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


# what a DNS-1123 label is, for a finding's detail next to ``dns_label_problem``'s words
DNS1123_LABEL_RULE = ("a DNS-1123 label (a namespace name) consists of lower-case letters, digits and '-', starts and "
                      "ends with a letter or digit, and has at most 63 characters")


def dns_label_problem(s: str) -> Optional[str]:
    """What is wrong with ``s`` as a DNS-1123 label, in a few words ("is 70 characters long,
    more than 63"), or None; ``DNS1123_LABEL_RULE`` says what one is."""
    if len(s) > 63:
        return f"is {len(s)} characters long, more than 63"
    if not DNS1123_LABEL.fullmatch(s):
        return "is not a DNS-1123 label"
    return None
