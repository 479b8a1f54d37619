"""The bundle annotations' keys and the bundle formats (mediatypes) opm knows."""
from __future__ import annotations

from ...model import K8S_V1, PLAIN_V0, REGISTRY_V1

MEDIATYPE_KEY = "operators.operatorframework.io.bundle.mediatype.v1"
MANIFESTS_KEY = "operators.operatorframework.io.bundle.manifests.v1"
METADATA_KEY = "operators.operatorframework.io.bundle.metadata.v1"
PACKAGE_KEY = "operators.operatorframework.io.bundle.package.v1"
CHANNELS_KEY = "operators.operatorframework.io.bundle.channels.v1"
DEFAULT_KEY = "operators.operatorframework.io.bundle.channel.default.v1"
# opm's own (operator-registry pkg/lib/bundle/generate.go: RegistryV1Type, PlainType, HelmType),
# then the plain-bundle design's k8s+v1 (seed 002) and the file-based catalogs' plain+v0
OPM_MEDIATYPES = (REGISTRY_V1, "plain", "helm")
KNOWN_MEDIATYPES = OPM_MEDIATYPES + (K8S_V1, PLAIN_V0)
