"""Plain Kubernetes bundle rules (mediatype ``k8s+v1``; ``plain+v0`` in older proposals): per
the plain-k8s-bundles design, no ClusterServiceVersion -- the manifests are plain Kubernetes
objects (at least a Deployment for the operator) and ``metadata/olm.yaml`` carries what the
CSV used to (``name``, ``version``, ``minKubeVersion``, ``installModes``); OLM infers the APIs
the bundle provides and requires from its manifests, which ``plain-bundle-apis`` shows.
olm.yaml's ``minKubeVersion`` drives version analysis as the CSV's would
(``checker.publication``: ``bundle.versions.declared_min_kube``), so every version-aware rule
applies to plain bundles."""
