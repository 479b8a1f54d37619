"""What the CSV metadata rules share: the sources of their refusals, and what is wrong with a
CSV name (metadata.name, spec.replaces)."""
from __future__ import annotations

from typing import Optional

from ...upstream.k8s_names import DNS1123_SUBDOMAIN

CSV_GO = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/csv.go"
CSV_CRD = "https://github.com/operator-framework/api/blob/master/crds/operators.coreos.com_clusterserviceversions.yaml"
PIPE_COMMON = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/common/bundle.py"
PIPE_COMMUNITY = "https://github.com/redhat-openshift-ecosystem/operator-pipelines/blob/main/operatorcert/static_tests/community/bundle.py"
HUB_GO = "https://github.com/operator-framework/api/blob/master/pkg/validation/internal/operatorhub.go"


def name_problem(s: str) -> Optional[tuple[str, str]]:
    """(what is wrong, in a few words; why it is wrong, a sentence) for a CSV name, or None."""
    if len(s) > 63:
        return (f"is {len(s)} characters long, more than 63",
                "OLM also uses the CSV name as a label value (olm.owner), which allows at most 63 characters.")
    if not DNS1123_SUBDOMAIN.fullmatch(s):
        return ("is not a valid Kubernetes object name (DNS-1123)",
                "A DNS-1123 name has lower-case letters, digits, '-' and '.', starting and ending with a letter or digit.")
    return None
