"""Pod create-time warnings (strategy WarningsOnCreate + podutil.GetWarningsForPod)."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.kinds.pod.remembered import PodRemembered
from fakeapi.kinds.pod.validation.annotations import SECCOMP_CONTAINER_PREFIX, SECCOMP_POD
from fakeapi.kinds.pod.validation.podspec import visit_containers
from fakeapi.kinds.pod.validation.volumenames import volumes_by_position
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import as_dict, as_list, as_str, quantity, quantity_text

_SECCOMP_DEPRECATED = 'non-functional in v1.27+; use the "seccompProfile" field instead'
_DEPRECATED_NODE_LABELS = {
    old: f'deprecated since {since}; use "{new}" instead'
    for old, since, new in (
        ("beta.kubernetes.io/arch", "v1.14", "kubernetes.io/arch"),
        ("beta.kubernetes.io/os", "v1.14", "kubernetes.io/os"),
        ("failure-domain.beta.kubernetes.io/region", "v1.17", "topology.kubernetes.io/region"),
        ("failure-domain.beta.kubernetes.io/zone", "v1.17", "topology.kubernetes.io/zone"),
        ("beta.kubernetes.io/instance-type", "v1.17", "node.kubernetes.io/instance-type"),
    )
}
_DEPRECATED_ANNOTATIONS = (
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        'non-functional in v1.16+; use the "priorityClassName" field instead',
    ),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    (
        "security.alpha.kubernetes.io/unsafe-sysctls",
        'non-functional in v1.11+; use the "sysctls" field instead',
    ),
)
_DEPRECATED_VOLUMES = (
    ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("gitRepo", "gitRepo", "deprecated in v1.11"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)


def _fractional_bytes(
    values: JSON, path: str, keys: tuple[str, ...] = ("memory", "ephemeral-storage")
) -> list[str]:
    warnings = []
    for name in keys:
        value = quantity(values[name]) if name in values else None
        if value is not None and (value * 1000).__ceil__() % 1000:
            shown = quantity_text(values[name])
            warnings.append(f'{path}[{name}]: fractional byte value "{shown}" is invalid, must be an integer')
    return warnings


def _node_term(term: Any, path: str) -> list[str]:
    return [
        f"{path}.matchExpressions[{index}].key: {key} is {_DEPRECATED_NODE_LABELS[key]}"
        for index, expression in enumerate(as_list(as_dict(term).get("matchExpressions")))
        if (key := as_str(as_dict(expression).get("key"))) in _DEPRECATED_NODE_LABELS
    ]


def _scheduling(spec: JSON, spec_path: str) -> list[str]:
    warnings = [
        f"{spec_path}.nodeSelector[{key}]: {_DEPRECATED_NODE_LABELS[key]}"
        for key in as_dict(spec.get("nodeSelector"))
        if key in _DEPRECATED_NODE_LABELS
    ]
    node = as_dict(as_dict(spec.get("affinity")).get("nodeAffinity"))
    base = f"{spec_path}.affinity.nodeAffinity"
    required = as_dict(node.get("requiredDuringSchedulingIgnoredDuringExecution"))
    for index, term in enumerate(as_list(required.get("nodeSelectorTerms"))):
        warnings += _node_term(
            term, f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{index}]"
        )
    for index, term in enumerate(as_list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        at = f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{index}].preference"
        warnings += _node_term(as_dict(term).get("preference"), at)
    for index, raw in enumerate(as_list(spec.get("topologySpreadConstraints"))):
        constraint, at = as_dict(raw), f"{spec_path}.topologySpreadConstraints[{index}]"
        key = as_str(constraint.get("topologyKey"))
        if key in _DEPRECATED_NODE_LABELS:
            warnings.append(f"{at}.topologyKey: {key} is {_DEPRECATED_NODE_LABELS[key]}")
        if constraint.get("labelSelector") is None:
            warnings.append(f"{at}.labelSelector: a null labelSelector results in matching no pod")
    return warnings


def _container(container: JSON, path: str, annotations: JSON, meta_path: str) -> list[str]:
    warnings = []
    key = SECCOMP_CONTAINER_PREFIX + as_str(container.get("name"))
    if as_dict(container.get("securityContext")).get("seccompProfile") is None and key in annotations:
        warnings.append(f"{meta_path}.annotations[{key}]: {_SECCOMP_DEPRECATED}")
    resources = as_dict(container.get("resources"))
    for kind in ("limits", "requests"):
        for name in ("memory", "ephemeral-storage"):
            warnings += _fractional_bytes(as_dict(resources.get(kind)), f"{path}.resources.{kind}", (name,))
    env = as_list(container.get("env"))
    seen: set[str] = set()
    for index, raw in enumerate(env if len(env) > 1 else []):
        var = as_dict(raw)
        name, value = as_str(var.get("name")), as_str(var.get("value"))
        if name in seen:
            ref = f"$({name})"
            if var.get("valueFrom") is not None or value == ref or ref not in value:
                detail = f'hides previous definition of "{name}", which may be dropped when using apply'
                warnings.append(f"{path}.env[{index}]: {detail}")
        seen.add(name)
    return warnings


def _null_affinity_selectors(spec: JSON, spec_path: str) -> list[str]:
    warnings = []
    affinity = as_dict(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        base = f"{spec_path}.affinity.{kind}"
        terms = as_dict(affinity.get(kind))
        for index, term in enumerate(as_list(terms.get("requiredDuringSchedulingIgnoredDuringExecution"))):
            if as_dict(term).get("labelSelector") is None:
                at = f"{base}.requiredDuringSchedulingIgnoredDuringExecution[{index}].labelSelector"
                warnings.append(f"{at}: a null labelSelector results in matching no pod")
        for index, term in enumerate(as_list(terms.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            if as_dict(as_dict(term).get("podAffinityTerm")).get("labelSelector") is None:
                at = f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{index}].podAffinityTerm"
                warnings.append(f"{at}.labelSelector: a null labelSelector results in matching no pod")
    return warnings


def warnings_on_create(pod: JSON, memo: PodRemembered | None = None) -> list[str]:
    """WarningsOnCreate: the DNS-label name warning, then the cheap part of GetWarningsForPod in
    upstream's order (port-overlap and projected-path warnings are not produced). The rest depends on
    the spec (but not its volume names) and annotations only, which pods from one template share:
    `memo` remembers it."""
    meta, spec = as_dict(pod.get("metadata")), as_dict(pod.get("spec"))
    warnings: list[str] = []
    label_errors = names.is_dns1123_label(as_str(meta.get("name")))
    if label_errors:
        warnings.append(
            "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; "
            f"a DNS label is recommended: [{' '.join(label_errors)}]"
        )
    if memo is None:
        return warnings + _template_warnings(spec, meta.get("annotations"))
    try:  # no warning names a volume: the volumes by position give the same warnings
        template = orjson.dumps([volumes_by_position(spec) or spec, meta.get("annotations")],
                                option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not plain JSON (a YAML date, a non-string key): worked out as it is
        return warnings + _template_warnings(spec, meta.get("annotations"))
    return warnings + list(memo.template_warnings(template))


def template_warnings(template_json: bytes) -> tuple[str, ...]:
    """The warnings of a pod's [spec, annotations] JSON (see `warnings_on_create`)."""
    spec, annotations = orjson.loads(template_json)
    return tuple(_template_warnings(as_dict(spec), annotations))


def pod_template_warnings(template: JSON, path: str) -> list[str]:
    """GetWarningsForPodTemplate: the pod warnings of a workload's template, at its path (`spec.template`)."""
    meta = as_dict(template.get("metadata"))
    return _template_warnings(as_dict(template.get("spec")), meta.get("annotations"), path)


def _template_warnings(spec: JSON, annotations_value: Any, base: str = "") -> list[str]:
    spec_path, meta_path = (f"{base}.spec", f"{base}.metadata") if base else ("spec", "metadata")
    meta: JSON = {"annotations": annotations_value} if annotations_value is not None else {}
    warnings: list[str] = []
    warnings += _scheduling(spec, spec_path)
    annotations = as_dict(meta.get("annotations"))
    for key, message in _DEPRECATED_ANNOTATIONS:
        if key in annotations:
            warnings.append(f"{meta_path}.annotations[{key}]: {message}")
    for index, raw in enumerate(as_list(spec.get("volumes"))):
        volume = as_dict(raw)
        for key, shown, message in _DEPRECATED_VOLUMES:
            if volume.get(key) is not None:
                warnings.append(f"{spec_path}.volumes[{index}].{shown}: {message}")
    aliases = as_list(spec.get("hostAliases"))
    seen_ips: set[str] = set()
    for index, alias in enumerate(aliases if len(aliases) > 1 else []):
        ip = as_str(as_dict(alias).get("ip"))
        if ip in seen_ips:
            warnings.append(f'{spec_path}.hostAliases[{index}].ip: duplicate ip "{ip}"')
        seen_ips.add(ip)
    secrets = as_list(spec.get("imagePullSecrets"))
    seen_secrets: set[str] = set()
    for index, secret in enumerate(secrets if len(secrets) > 1 else []):
        name = as_str(as_dict(secret).get("name"))
        if name in seen_secrets:
            warnings.append(f'{spec_path}.imagePullSecrets[{index}].name: duplicate name "{name}"')
        seen_secrets.add(name)
    for index, secret in enumerate(secrets):
        if not as_str(as_dict(secret).get("name")):
            warnings.append(f'{spec_path}.imagePullSecrets[{index}].name: invalid empty name ""')
    warnings += _fractional_bytes(as_dict(spec.get("overhead")), f"{spec_path}.overhead")
    if as_dict(spec.get("securityContext")).get("seccompProfile") is None and SECCOMP_POD in annotations:
        warnings.append(f"{meta_path}.annotations[{SECCOMP_POD}]: {_SECCOMP_DEPRECATED}")
    for container, at in visit_containers(spec, spec_path):
        warnings += _container(container, at, annotations, meta_path)
    grace = spec.get("terminationGracePeriodSeconds")
    if isinstance(grace, int) and grace < 0:
        detail = "must be >= 0; negative values are invalid and will be treated as 1"
        warnings.append(f"{spec_path}.terminationGracePeriodSeconds: {detail}")
    return warnings + _null_affinity_selectors(spec, spec_path)
