"""Decode-time defaulting of Pods (upstream pkg/apis/core/v1/defaults.go + conversion).

Runs on every create and update, before QoS and validation see the object. Mutates the wire dict
in place and skips whatever is not the expected shape: validation reports that later.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from fakeapi.kinds.pod.remembered import PodRemembered
from fakeapi.kinds.pod.requests import aggregate_containers
from fakeapi.machinery.quantity import (
    canonical_quantity,
    format_quantity,
    round_resource_list,
)
from fakeapi.machinery.types import JSON

DEFAULT_MODE = 420  # 0644, for secret, configMap, downwardAPI and projected volumes
VOLUME_SOURCES = frozenset((
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
    "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
    "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
    "image",
))  # fmt: skip
_AZURE_DISK_DEFAULTS = (
    ("cachingMode", "ReadWrite"),
    ("fsType", "ext4"),
    ("readOnly", False),
    ("kind", "Shared"),
)
# conversion drops these pre-1.8 annotations in both directions
_INIT_CONTAINER_ANNOTATIONS = (
    "pod.beta.kubernetes.io/init-containers",
    "pod.alpha.kubernetes.io/init-containers",
    "pod.beta.kubernetes.io/init-container-statuses",
    "pod.alpha.kubernetes.io/init-container-statuses",
)
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_STATUS_LISTS = ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses")
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_PROBE_DEFAULTS = (
    ("timeoutSeconds", 1),
    ("periodSeconds", 10),
    ("successThreshold", 1),
    ("failureThreshold", 3),
)
_OVERCOMMITTABLE = ("cpu", "memory")  # the pod-level resources whose requests may be below limits


def default_pod(pod: JSON, *, spec_too: bool = True, memo: PodRemembered | None = None) -> None:
    """SetObjectDefaults_Pod plus the v1<->internal conversion effects visible on the wire.

    `spec_too=False` skips the spec, for writes whose spec the strategy replaces anyway (pods/status).
    `memo` (a server's pod strategy's) remembers how resource amounts round.
    """
    metadata = pod.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict) and any(key in annotations for key in _INIT_CONTAINER_ANNOTATIONS):
        kept = {key: value for key, value in annotations.items() if key not in _INIT_CONTAINER_ANNOTATIONS}
        if kept:
            pod["metadata"]["annotations"] = kept
        else:
            del pod["metadata"]["annotations"]  # empty, Go's encoder leaves it out
    if spec_too:
        spec = pod.get("spec")
        if spec is None:
            spec = pod["spec"] = {}
        if isinstance(spec, dict):
            _default_pod_spec(spec, memo)
    status = pod.get("status")
    if isinstance(status, dict) and status:
        _default_pod_status(status)


def default_pod_spec(spec: JSON) -> None:
    """The defaults of a pod template's spec (workloads' templates): SetDefaults_PodSpec and what it calls,
    without SetDefaults_Pod's."""
    _default_any_pod_spec(spec, None)


def image_pull_policy(image: Any) -> str:
    """`Always` for tag `latest` or no tag and no digest; `IfNotPresent` otherwise or if unparseable."""
    if not isinstance(image, str):
        return "IfNotPresent"
    return _pull_policy(image)


# -- pod spec ---------------------------------------------------------------------------------


def _default_pod_spec(spec: JSON, memo: PodRemembered | None) -> None:
    # SetDefaults_Pod: requests from limits (containers and init containers only), pod-level resources
    for key in ("containers", "initContainers"):
        for container in _dicts(spec.get(key)):
            _requests_from_limits(container)
    pod_resources = spec.get("resources")
    if isinstance(pod_resources, dict):
        _default_pod_level_resources(spec, pod_resources)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container in _dicts(spec.get(key)):
                for port in _dicts(container.get("ports")):
                    if not port.get("hostPort") and port.get("containerPort"):
                        port["hostPort"] = port["containerPort"]
    _default_any_pod_spec(spec, memo)


def _default_any_pod_spec(spec: JSON, memo: PodRemembered | None) -> None:
    """SetDefaults_PodSpec and the defaults of what a PodSpec holds: what pod templates get too (the
    requests copied from limits, enableServiceLinks and host-network ports are the pod's own)."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for volume in _dicts(spec.get("volumes")):
        _default_volume(volume)
    for key in _CONTAINER_LISTS:
        for container in _dicts(spec.get(key)):
            _default_container(container, memo)
    rounded = memo.rounded if memo else None
    round_resource_list(spec.get("overhead"), rounded)
    pod_resources = spec.get("resources")
    if isinstance(pod_resources, dict):
        round_resource_list(pod_resources.get("limits"), rounded)
        round_resource_list(pod_resources.get("requests"), rounded)
    # conversion: the deprecated serviceAccount mirrors serviceAccountName, which wins when both are set
    account = spec.get("serviceAccountName") or spec.get("serviceAccount")
    if account:
        spec["serviceAccountName"] = spec["serviceAccount"] = account


def _requests_from_limits(container: JSON) -> None:
    resources = container.get("resources")
    if not isinstance(resources, dict):
        return
    limits = resources.get("limits")
    if not isinstance(limits, dict) or not limits:
        return
    requests = resources.get("requests")
    if requests is None:
        requests = resources["requests"] = {}
    if isinstance(requests, dict):
        for name, amount in limits.items():
            if name not in requests:
                requests[name] = amount


def _default_container(container: JSON, memo: PodRemembered | None) -> None:
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = image_pull_policy(container.get("image"))
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = "/dev/termination-log"
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    # dispatch on the fields present: most containers set few of them
    for key, value in container.items():
        if key == "resources":
            _default_resources(value, memo)
            continue
        default_field = _CONTAINER_FIELDS.get(key)
        if default_field is not None:
            default_field(value)


def _default_ports(ports: Any) -> None:
    for port in _dicts(ports):
        if not port.get("protocol"):
            port["protocol"] = "TCP"


def _default_env(env: Any) -> None:
    for variable in _dicts(env):
        value_from = variable.get("valueFrom")
        if type(value_from) is dict:
            _default_env_source(value_from)


def _default_resources(resources: Any, memo: PodRemembered | None = None) -> None:
    if type(resources) is dict:
        rounded = memo.rounded if memo else None
        round_resource_list(resources.get("limits"), rounded)
        round_resource_list(resources.get("requests"), rounded)


def _default_probe(probe: Any) -> None:
    if type(probe) is not dict:
        return
    for field, default in _PROBE_DEFAULTS:
        if not probe.get(field):
            probe[field] = default
    _default_http_get(probe.get("httpGet"))
    grpc = probe.get("grpc")
    if type(grpc) is dict and grpc.get("service") is None:
        grpc["service"] = ""


def _default_lifecycle(lifecycle: Any) -> None:
    if type(lifecycle) is dict:
        for key in ("postStart", "preStop"):
            handler = lifecycle.get(key)
            if type(handler) is dict:
                _default_http_get(handler.get("httpGet"))


def _default_http_get(action: Any) -> None:
    if type(action) is dict:
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def _default_env_source(source: JSON) -> None:
    """An env valueFrom or a downwardAPI item: fieldRef.apiVersion, and resourceFieldRef.divisor
    re-serialised like every quantity."""
    field_ref = source.get("fieldRef")
    if type(field_ref) is dict and not field_ref.get("apiVersion"):
        field_ref["apiVersion"] = "v1"
    resource_ref = source.get("resourceFieldRef")
    if type(resource_ref) is dict and resource_ref.get("divisor") is not None:
        resource_ref["divisor"] = _canonical_or_same(resource_ref["divisor"])


_CONTAINER_FIELDS: dict[str, Callable[[Any], None]] = {
    "ports": _default_ports,
    "env": _default_env,
    "livenessProbe": _default_probe,
    "readinessProbe": _default_probe,
    "startupProbe": _default_probe,
    "lifecycle": _default_lifecycle,
}


def _default_volume(volume: JSON) -> None:
    has_source = False
    for key, source in volume.items():
        if source is not None and key in VOLUME_SOURCES:
            has_source = True
            default_source = _VOLUME_SOURCES.get(key)
            if default_source is not None and type(source) is dict:
                default_source(source)
    if not has_source:
        volume["emptyDir"] = {}


def _default_mode(source: JSON) -> None:
    if source.get("defaultMode") is None:
        source["defaultMode"] = DEFAULT_MODE


def _default_downward_api(source: JSON) -> None:
    _default_mode(source)
    for item in _dicts(source.get("items")):
        _default_env_source(item)


def _default_projected(projected: JSON) -> None:
    _default_mode(projected)
    for source in _dicts(projected.get("sources")):
        downward = source.get("downwardAPI")
        if type(downward) is dict:
            for item in _dicts(downward.get("items")):
                _default_env_source(item)
        token = source.get("serviceAccountToken")
        if type(token) is dict and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = 3600


def _default_host_path(host_path: JSON) -> None:
    if host_path.get("type") is None:
        host_path["type"] = ""


def _default_empty_dir(empty_dir: JSON) -> None:
    if empty_dir.get("sizeLimit") is not None:
        empty_dir["sizeLimit"] = _canonical_or_same(empty_dir["sizeLimit"])


def _default_azure_disk(disk: JSON) -> None:
    # pointer fields: only null defaults, an explicit "" stays
    for field, default in _AZURE_DISK_DEFAULTS:
        if disk.get(field) is None:
            disk[field] = default


def _string_defaults(*defaults: tuple[str, str]) -> Callable[[JSON], None]:
    def default_strings(source: JSON) -> None:
        for field, default in defaults:
            if not source.get(field):
                source[field] = default

    return default_strings


def _default_ephemeral(ephemeral: JSON) -> None:
    template = ephemeral.get("volumeClaimTemplate")
    claim = template.get("spec") if type(template) is dict else None
    if type(claim) is dict:
        if claim.get("volumeMode") is None:
            claim["volumeMode"] = "Filesystem"
        _default_resources(claim.get("resources"))


# declarative (+default=) defaults of volume sources included
_VOLUME_SOURCES: dict[str, Callable[[JSON], None]] = {
    "secret": _default_mode,
    "configMap": _default_mode,
    "downwardAPI": _default_downward_api,
    "projected": _default_projected,
    "hostPath": _default_host_path,
    "emptyDir": _default_empty_dir,
    "azureDisk": _default_azure_disk,
    "iscsi": _string_defaults(("iscsiInterface", "default")),
    "rbd": _string_defaults(("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")),
    "scaleIO": _string_defaults(("storageMode", "ThinProvisioned"), ("fsType", "xfs")),
    "ephemeral": _default_ephemeral,
}


def _default_pod_status(status: JSON) -> None:
    for key in _STATUS_LISTS:
        for container_status in _dicts(status.get(key)):
            round_resource_list(container_status.get("allocatedResources"))
            resources = container_status.get("resources")
            if isinstance(resources, dict):
                round_resource_list(resources.get("limits"))
                round_resource_list(resources.get("requests"))
    # conversion: a singular podIP/hostIP that disagrees with (or lacks) its list replaces the list,
    # for older clients that only know the singular; podIP itself is re-derived from podIPs[0]
    for single, plural in (("podIP", "podIPs"), ("hostIP", "hostIPs")):
        address = status.get(single)
        if address and isinstance(address, str):
            addresses = status.get(plural)
            first = addresses[0] if isinstance(addresses, list) and addresses else None
            if not isinstance(first, dict) or first.get("ip") != address:
                status[plural] = [{"ip": address}]
    pod_ips = status.get("podIPs")
    if not status.get("podIP") and isinstance(pod_ips, list) and pod_ips and isinstance(pod_ips[0], dict):
        if pod_ips[0].get("ip"):
            status["podIP"] = pod_ips[0]["ip"]


# -- quantities -------------------------------------------------------------------------------


def _canonical_or_same(amount: Any) -> Any:
    try:
        return canonical_quantity(amount)
    except ValueError:
        return amount


# -- pod-level resources (PodLevelResources) --------------------------------------------------


def _default_pod_level_resources(spec: JSON, resources: JSON) -> None:
    """defaultHugePagePodLimits, defaultPodRequests and defaultPodLimits, in that order."""
    limits = resources.get("limits")
    requests = resources.get("requests")
    if (limits is not None and not isinstance(limits, dict)) or (
        requests is not None and not isinstance(requests, dict)
    ):
        return
    if not limits and not requests:
        return
    container_limits = aggregate_containers(spec, "limits")
    # pod-level hugepages limits from the containers' ones, unless a hugepages request is set
    pod_limits: JSON = dict(limits or {})
    for name, total in container_limits.items():
        if name.startswith("hugepages-") and name not in (requests or {}) and name not in pod_limits:
            pod_limits[name] = format_quantity(total)
    if pod_limits:
        resources["limits"] = limits = pod_limits
    # pod-level requests: from the containers' requests, else from the pod-level limits
    if limits:
        pod_requests: JSON = dict(requests or {})
        for name, total in aggregate_containers(spec, "requests").items():
            if name not in pod_requests and name in _OVERCOMMITTABLE:
                pod_requests[name] = format_quantity(total)
        for name, amount in limits.items():
            if name not in pod_requests and _is_pod_level_resource(name):
                pod_requests[name] = amount
        if pod_requests:
            resources["requests"] = requests = pod_requests
    # pod-level limits: from the containers' limits, when only requests are set and every container has one
    if not any(_is_pod_level_resource(name) for name in (limits or {})) and any(
        _is_pod_level_resource(name) for name in (requests or {})
    ):
        pod_limits = dict(limits or {})
        for name, total in container_limits.items():
            if name in _OVERCOMMITTABLE and name not in pod_limits and _all_containers_limit(spec, name):
                pod_limits[name] = format_quantity(total)
        if pod_limits:
            resources["limits"] = pod_limits


def _is_pod_level_resource(name: str) -> bool:
    return name in _OVERCOMMITTABLE or name.startswith("hugepages-")


def _all_containers_limit(spec: JSON, name: str) -> bool:
    for key in ("containers", "initContainers"):
        for container in _dicts(spec.get(key)):
            resources = container.get("resources")
            limits = resources.get("limits") if isinstance(resources, dict) else None
            if not isinstance(limits, dict) or name not in limits:
                return False
    return True


# -- image references (distribution/reference, as parsers.ParseImageName uses it) ------------

_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_REFERENCE = re.compile(
    rf"((?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
    r"(?::([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?"
)
_HEX_IDENTIFIER = re.compile(r"[a-f0-9]{64}")
_DIGEST_HEX = {"sha256": re.compile(r"[a-f0-9]{64}"), "sha384": re.compile(r"[a-f0-9]{96}"),
               "sha512": re.compile(r"[a-f0-9]{128}")}  # fmt: skip


def _pull_policy(image: str) -> str:
    reference = _parse_image(image)
    if reference is None:
        return "IfNotPresent"
    tag, digest = reference
    return "Always" if tag == "latest" or (not tag and not digest) else "IfNotPresent"


def _parse_image(image: str) -> tuple[str, str] | None:
    """(tag, digest) of a reference after docker.io normalisation, or None if it does not parse."""
    if _HEX_IDENTIFIER.fullmatch(image):
        return None
    slash = image.find("/")
    first = image[:slash]
    if slash == -1 or (
        "." not in first and ":" not in first and first != "localhost" and first.lower() == first
    ):
        domain, remainder = "docker.io", image
    else:
        domain, remainder = first, image[slash + 1 :]
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = "library/" + remainder
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        return None
    match = _REFERENCE.fullmatch(f"{domain}/{remainder}")
    if match is None or len(match.group(1)) > 255:
        return None
    digest = match.group(3) or ""
    if digest:
        algorithm, _, encoded = digest.partition(":")
        pattern = _DIGEST_HEX.get(algorithm)
        if pattern is None or not pattern.fullmatch(encoded):
            return None
    return match.group(2) or "", digest


def _dicts(items: Any) -> Sequence[JSON]:
    """The dict entries of a wire list; anything else is skipped (validation reports it)."""
    if type(items) is not list:
        return ()
    for item in items:
        if type(item) is not dict:
            return [item for item in items if type(item) is dict]
    return items  # the usual case: no copy
