"""kube-controller-manager's controller names (v1.32) and its `--controllers` flag: `*` enables every controller
that is on by default, `name` enables one, `-name` disables one; each controller also answers to its name from
before v1.28 (`deployment` for `deployment-controller`)."""

from __future__ import annotations

from collections.abc import Iterable

GARBAGE_COLLECTOR = "garbage-collector-controller"
DEPLOYMENT = "deployment-controller"
REPLICASET = "replicaset-controller"
REPLICATION_CONTROLLER = "replicationcontroller-controller"
STATEFULSET = "statefulset-controller"
DAEMONSET = "daemonset-controller"
JOB = "job-controller"
CRONJOB = "cronjob-controller"
TTL_AFTER_FINISHED = "ttl-after-finished-controller"
ENDPOINTS = "endpoints-controller"
ENDPOINTSLICE = "endpointslice-controller"
DISRUPTION = "disruption-controller"
NODE_IPAM = "node-ipam-controller"
NODE_LIFECYCLE = "node-lifecycle-controller"
TAINT_EVICTION = "taint-eviction-controller"

# every controller kube-controller-manager v1.32 knows -> its name from before v1.28 ("" when it had none)
KNOWN: dict[str, str] = {
    "serviceaccount-token-controller": "serviceaccount-token",
    ENDPOINTS: "endpoint",
    ENDPOINTSLICE: "endpointslice",
    "endpointslice-mirroring-controller": "endpointslicemirroring",
    REPLICATION_CONTROLLER: "replicationcontroller",
    "pod-garbage-collector-controller": "podgc",
    "resourcequota-controller": "resourcequota",
    "namespace-controller": "namespace",
    "serviceaccount-controller": "serviceaccount",
    GARBAGE_COLLECTOR: "garbagecollector",
    DAEMONSET: "daemonset",
    JOB: "job",
    DEPLOYMENT: "deployment",
    REPLICASET: "replicaset",
    "horizontal-pod-autoscaler-controller": "horizontalpodautoscaling",
    DISRUPTION: "disruption",
    STATEFULSET: "statefulset",
    CRONJOB: "cronjob",
    "certificatesigningrequest-signing-controller": "csrsigning",
    "certificatesigningrequest-approving-controller": "csrapproving",
    "certificatesigningrequest-cleaner-controller": "csrcleaner",
    "ttl-controller": "ttl",
    "bootstrap-signer-controller": "bootstrapsigner",
    "token-cleaner-controller": "tokencleaner",
    NODE_IPAM: "nodeipam",
    NODE_LIFECYCLE: "nodelifecycle",
    TAINT_EVICTION: "",
    "service-lb-controller": "service",
    "node-route-controller": "route",
    "cloud-node-lifecycle-controller": "cloud-node-lifecycle",
    "persistentvolume-binder-controller": "persistentvolume-binder",
    "persistentvolume-attach-detach-controller": "attachdetach",
    "persistentvolume-expander-controller": "persistentvolume-expander",
    "clusterrole-aggregation-controller": "clusterrole-aggregation",
    "persistentvolumeclaim-protection-controller": "pvc-protection",
    "persistentvolume-protection-controller": "pv-protection",
    TTL_AFTER_FINISHED: "ttl-after-finished",
    "root-ca-certificate-publisher-controller": "root-ca-cert-publisher",
    "ephemeral-volume-controller": "ephemeral-volume",
    "storageversion-garbage-collector-controller": "storage-version-gc",
    "resourceclaim-controller": "resource-claim-controller",
    "legacy-serviceaccount-token-cleaner-controller": "legacy-service-account-token-cleaner",
    "validatingadmissionpolicy-status-controller": "",
    "service-cidr-controller": "",
    "storage-version-migrator-controller": "",
}
OFF_BY_DEFAULT = frozenset({"bootstrap-signer-controller", "token-cleaner-controller", "service-lb-controller",
                            "node-route-controller", "cloud-node-lifecycle-controller", "resourceclaim-controller",
                            "service-cidr-controller", "storage-version-migrator-controller",
                            "storageversion-garbage-collector-controller"})
_BY_ALIAS = {alias: name for name, alias in KNOWN.items() if alias}


class UnknownController(ValueError):
    """A `--controllers` entry that names no controller: kube-controller-manager's message."""


def canonical(name: str) -> str:
    """The controller's v1.32 name, from it or its old name; UnknownController if neither."""
    if name in KNOWN:
        return name
    if name in _BY_ALIAS:
        return _BY_ALIAS[name]
    raise UnknownController(f"{name!r} is not in the list of known controllers".replace("'", '"'))


def enabled(entries: Iterable[str]) -> frozenset[str]:
    """The controllers a `--controllers` list enables (kube-controller-manager's IsControllerEnabled): the first
    entry naming a controller decides (`name` enables it, `-name` disables it); a controller no entry names is
    enabled by `*` if it is on by default."""
    decided: dict[str, bool] = {}
    star = False
    for entry in (entry.strip() for entry in entries):
        if entry == "*":
            star = True
        elif entry:
            disable = entry.startswith("-")
            decided.setdefault(canonical(entry[1:] if disable else entry), not disable)
    return frozenset(name for name in KNOWN
                     if decided.get(name, star and name not in OFF_BY_DEFAULT))


def parse(text: str) -> tuple[str, ...]:
    """The entries of a `--controllers` value (comma-separated), each checked: UnknownController if one names
    no controller."""
    entries = tuple(entry.strip() for entry in text.split(",") if entry.strip())
    for entry in entries:
        if entry != "*":
            canonical(entry.removeprefix("-"))
    return entries
