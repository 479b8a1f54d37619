"""Version rules: the OpenShift releases a bundle is published to and installs on -- its
`com.redhat.openshift.versions` range, olm.maxOpenShiftVersion, minKubeVersion -- and the
Kubernetes APIs and webhook review versions it uses, checked against every release it is
published to or a cluster can upgrade into. They read ``bundle.versions``
(``checker.versions_analysis``) and the release and API tables through ``ctx.ocp`` /
``ctx.apis``; what several of them share is in ``checker.rules.lib.versions_common`` and
``versions_apis``."""
