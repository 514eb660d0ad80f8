"""Pod updates: the main resource (ValidatePodUpdate) and pods/resize (ValidatePodResize)."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.kinds.pod.remembered import PodRemembered
from fakeapi.kinds.pod.validation.annotations import MIRROR_POD, validate_pod_specific_annotation_updates
from fakeapi.kinds.pod.validation.podspec import validate_pod_metadata_and_spec
from fakeapi.kinds.pod.validation.scheduling import validate_tolerations
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta_update
from fakeapi.machinery.validation.values import (
    GoText,
    as_dict,
    as_list,
    as_str,
    diff_paths,
    go_string_map,
    quantity,
    semantic_equal,
)

UPDATABLE_FIELDS = ",".join(
    (
        "`spec.containers[*].image`",
        "`spec.initContainers[*].image`",
        "`spec.activeDeadlineSeconds`",
        "`spec.tolerations` (only additions to existing tolerations)",
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    )
)
SPEC_CHANGE_PREFIX = f"pod updates may not change fields other than {UPDATABLE_FIELDS}"


def _container_updates(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    if len(new) != len(old):
        return [fe.forbidden(path, "pod updates may not add or remove containers")], True
    errs: list[FieldError] = []
    for index, container in enumerate(new):
        image = as_str(as_dict(container).get("image"))
        if not image:
            errs.append(fe.required(f"{path}[{index}].image"))
        if image != image.strip():
            errs.append(
                fe.invalid(f"{path}[{index}].image", image, "must not have leading or trailing whitespace")
            )
    return errs, False


def _only_added_tolerations(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    def without_seconds(toleration: Any) -> JSON:
        return {k: v for k, v in as_dict(toleration).items() if k != "tolerationSeconds"}

    candidates = [without_seconds(t) for t in new]
    for toleration in old:
        wanted = without_seconds(toleration)
        if not any(semantic_equal(wanted, candidate) for candidate in candidates):
            return [
                fe.forbidden(path, "existing toleration can not be modified except its tolerationSeconds")
            ]
    return validate_tolerations(new, path)


def _only_deleted_gates(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    old_names = {as_str(as_dict(g).get("name")) for g in old}
    added: dict[str, int] = {}
    for index, gate in enumerate(new):
        added[as_str(as_dict(gate).get("name"))] = index
    return [
        fe.forbidden(
            f"{path}[{index}].name", f"only deletion is allowed, but found new scheduling gate '{name}'"
        )
        for name, index in added.items()
        if name not in old_names
    ]


def _with_old_images(new: list[Any], old: list[Any]) -> list[Any]:
    return [{**as_dict(c), "image": as_dict(o).get("image")} for c, o in zip(new, old, strict=True)]


def _term_has_only_additions(new: JSON, old: JSON) -> bool:
    old_expressions, old_fields = as_list(old.get("matchExpressions")), as_list(old.get("matchFields"))
    new_expressions, new_fields = as_list(new.get("matchExpressions")), as_list(new.get("matchFields"))
    if not old_expressions and not old_fields and (new_expressions or new_fields):
        return False
    for old_list, new_list in ((old_expressions, new_expressions), (old_fields, new_fields)):
        if old_list and (
            len(new_list) < len(old_list) or not semantic_equal(new_list[: len(old_list)], old_list)
        ):
            return False
    return True


def _node_affinity_mutation(new: Any, old: Any, path: str) -> list[FieldError]:
    required = as_dict(as_dict(old).get("requiredDuringSchedulingIgnoredDuringExecution"))
    if not isinstance(old, dict) or not required:
        return []
    old_terms = as_list(required.get("nodeSelectorTerms"))
    new_required = as_dict(as_dict(new).get("requiredDuringSchedulingIgnoredDuringExecution"))
    new_terms = as_list(new_required.get("nodeSelectorTerms"))
    terms_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    if old_terms and len(old_terms) != len(new_terms):
        shown = GoText(orjson.dumps(new_terms).decode())
        return [
            fe.invalid(
                terms_path, shown, "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
            )
        ]
    return [
        fe.invalid(
            f"{terms_path}[{index}]",
            GoText(orjson.dumps(new_terms[index]).decode()),
            "only additions are allowed (no mutations or deletions)",
        )
        for index in range(len(old_terms))
        if not _term_has_only_additions(as_dict(new_terms[index]), as_dict(old_terms[index]))
    ]


def _gated_changes(munged: JSON, old_spec: JSON, errs: list[FieldError]) -> None:
    """A pod with scheduling gates may gain nodeSelector keys and narrow its required node affinity."""
    old_selector = as_dict(old_spec.get("nodeSelector"))
    if not semantic_equal(munged.get("nodeSelector"), old_spec.get("nodeSelector")):
        new_selector = as_dict(munged.get("nodeSelector"))
        if any(k not in new_selector or new_selector[k] != v for k, v in old_selector.items()):
            detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
            shown = go_string_map(new_selector if munged.get("nodeSelector") is not None else None)
            errs.append(fe.invalid("spec.nodeSelector", shown, detail))
        munged["nodeSelector"] = old_spec.get("nodeSelector")
    old_affinity, new_affinity = as_dict(old_spec.get("affinity")), as_dict(munged.get("affinity"))
    old_node, new_node = old_affinity.get("nodeAffinity"), new_affinity.get("nodeAffinity")
    if semantic_equal(old_node, new_node):
        return
    errs += _node_affinity_mutation(new_node, old_node, "spec.affinity.nodeAffinity")
    if munged.get("affinity") is None:
        if old_node is not None:
            munged["affinity"] = {"nodeAffinity": old_node}
    elif (
        old_spec.get("affinity") is None
        and not new_affinity.get("podAffinity")
        and not new_affinity.get("podAntiAffinity")
    ):
        munged["affinity"] = None
    else:
        munged["affinity"] = {**new_affinity, "nodeAffinity": old_node}


def validate_pod_update(new: JSON, old: JSON, memo: PodRemembered | None = None) -> list[FieldError]:
    """ValidatePodUpdate: metadata update rules, the full create-time checks on the new pod, the
    pod annotation rules, then spec mutability. (rest.BeforeUpdate's generic ObjectMeta checks are
    `meta.validate_common_update`, which the registry runs first.)"""
    new_meta, old_meta = as_dict(new.get("metadata")), as_dict(old.get("metadata"))
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs = validate_object_meta_update(new_meta, old_meta)
    errs += validate_pod_metadata_and_spec(new, memo)
    errs += validate_pod_specific_annotation_updates(new, old, "metadata.annotations")
    for key in ("containers", "initContainers"):
        found, stop = _container_updates(
            as_list(new_spec.get(key)), as_list(old_spec.get(key)), f"spec.{key}"
        )
        errs += found
        if stop:
            return errs
    new_deadline, old_deadline = new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if isinstance(new_deadline, int):
        if not 0 <= new_deadline <= names.MAX_INT32:
            detail = names.inclusive_range_error(0, names.MAX_INT32)
            return [*errs, fe.invalid("spec.activeDeadlineSeconds", new_deadline, detail)]
        if isinstance(old_deadline, int) and old_deadline < new_deadline:
            detail = "must be less than or equal to previous value"
            return [*errs, fe.invalid("spec.activeDeadlineSeconds", new_deadline, detail)]
    elif isinstance(old_deadline, int):
        detail = "must not update from a positive integer to nil value"
        errs.append(fe.invalid("spec.activeDeadlineSeconds", GoText("null"), detail))
    new_tolerations, old_tolerations = (
        as_list(new_spec.get("tolerations")),
        as_list(old_spec.get("tolerations")),
    )
    errs += _only_added_tolerations(new_tolerations, old_tolerations, "spec.tolerations")
    new_gates, old_gates = as_list(new_spec.get("schedulingGates")), as_list(old_spec.get("schedulingGates"))
    if new_gates:
        errs += _only_deleted_gates(new_gates, old_gates, "spec.schedulingGates")
    if semantic_equal(new_spec, old_spec):
        return errs
    munged = dict(new_spec)  # shallow: only top-level keys are replaced below
    munged["containers"] = _with_old_images(
        as_list(new_spec.get("containers")), as_list(old_spec.get("containers"))
    )
    munged["initContainers"] = _with_old_images(
        as_list(new_spec.get("initContainers")), as_list(old_spec.get("initContainers"))
    )
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged[key] = old_spec.get(key)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if old_gates:
        _gated_changes(munged, old_spec, errs)
    if not semantic_equal(munged, old_spec):
        diff = "\n".join(diff_paths(old_spec, munged, "spec"))
        errs.append(fe.forbidden("spec", f"{SPEC_CHANGE_PREFIX}\n{diff}"))
    return errs


def _resources_removed(new: Any, old: Any) -> bool:
    new_map, old_map = as_dict(new), as_dict(old)
    return len(old_map) > len(new_map) or any(name not in new_map for name in old_map)


def _container_resize(new: JSON, old: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    new_resources, old_resources = as_dict(new.get("resources")), as_dict(old.get("resources"))
    if _resources_removed(new_resources.get("requests"), old_resources.get("requests")):
        errs.append(fe.forbidden(f"{path}.requests", "resource requests cannot be removed"))
    if _resources_removed(new_resources.get("limits"), old_resources.get("limits")):
        errs.append(fe.forbidden(f"{path}.limits", "resource limits cannot be removed"))
    memory_policy = ""
    for policy in as_list(new.get("resizePolicy")):
        if as_dict(policy).get("resourceName") == "memory":
            memory_policy = as_str(as_dict(policy).get("restartPolicy"))
            break
    if memory_policy in ("NotRequired", ""):
        new_limit = as_dict(new_resources.get("limits")).get("memory")
        old_limit = as_dict(old_resources.get("limits")).get("memory")
        at = f"{path}.limits[memory]"
        if new_limit is not None and old_limit is not None:
            new_value, old_value = quantity(new_limit), quantity(old_limit)
            if new_value is not None and old_value is not None and new_value < old_value:
                errs.append(
                    fe.forbidden(
                        at, "memory limits cannot be decreased unless resizePolicy is RestartContainer"
                    )
                )
        elif new_limit is not None:
            errs.append(
                fe.forbidden(at, "memory limits cannot be added unless resizePolicy is RestartContainer")
            )
    return errs


def _keep_old_cpu_memory(new: JSON, old: JSON) -> JSON:
    """dropCPUMemoryResourcesFromContainer: the new container with cpu/memory taken from the old one."""
    new_resources, old_resources = as_dict(new.get("resources")), as_dict(old.get("resources"))
    munged: JSON = {}
    for key in ("limits", "requests"):
        old_list = old_resources.get(key)
        if not isinstance(old_list, dict):
            continue
        merged = {k: v for k, v in as_dict(new_resources.get(key)).items() if k not in ("cpu", "memory")}
        merged.update({k: old_list[k] for k in ("cpu", "memory") if k in old_list})
        munged[key] = merged
    return {**new, "resources": munged}


def validate_pod_resize(new: JSON, old: JSON, new_qos: str, old_qos: str) -> list[FieldError]:
    """ValidatePodResize (pods/resize). `old_qos` is GetPodQOS(old) (its status class), `new_qos`
    is ComputePodQOS(new); the caller computes both."""
    new_meta, old_meta = as_dict(new.get("metadata")), as_dict(old.get("metadata"))
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs = validate_object_meta_update(new_meta, old_meta)
    errs += validate_pod_metadata_and_spec(new)
    for spec in (old_spec, new_spec):
        resources = as_dict(spec.get("resources"))
        if as_dict(resources.get("requests")) or as_dict(resources.get("limits")):
            return [fe.forbidden("", "pods with pod-level resources cannot be resized")]
    if MIRROR_POD in as_dict(old_meta.get("annotations")):
        return [fe.forbidden("", "static pods cannot be resized")]
    if as_dict(old_spec.get("os")).get("name") == "windows":
        return [fe.forbidden("", "windows pods cannot be resized")]
    if old_qos != new_qos:
        shown = as_str(as_dict(new.get("status")).get("qosClass"))
        errs.append(fe.invalid("spec", shown, "Pod QOS Class may not change as a result of resizing"))
    for status in as_list(as_dict(old.get("status")).get("containerStatuses")):
        if as_dict(as_dict(status).get("state")).get("running") is not None:
            if as_dict(status).get("resources") is None:
                errs.append(fe.forbidden("spec", "Pod running on node without support for resize"))
            break
    new_init, old_init = as_list(new_spec.get("initContainers")), as_list(old_spec.get("initContainers"))
    new_regular, old_regular = as_list(new_spec.get("containers")), as_list(old_spec.get("containers"))
    for index, (n, o) in enumerate(zip(new_init, old_init, strict=False)):
        if as_dict(o).get("restartPolicy") == "Always":
            errs += _container_resize(as_dict(n), as_dict(o), f"spec.initContainers[{index}].resources")
    for index, (n, o) in enumerate(zip(new_regular, old_regular, strict=False)):
        errs += _container_resize(as_dict(n), as_dict(o), f"spec.containers[{index}].resources")
    munged_regular = []
    for n, o in zip(new_regular, old_regular, strict=False):
        container = _keep_old_cpu_memory(as_dict(n), as_dict(o))
        if not semantic_equal(container, o):
            errs.append(fe.forbidden("spec", "only cpu and memory resources are mutable"))
        munged_regular.append(container)
    munged_init = []
    for n, o in zip(new_init, old_init, strict=False):
        container = as_dict(n)
        if as_dict(o).get("restartPolicy") == "Always":
            container = _keep_old_cpu_memory(container, as_dict(o))
            if not semantic_equal(container, o):
                errs.append(
                    fe.forbidden("spec", "only cpu and memory resources for sidecar containers are mutable")
                )
        elif not semantic_equal(container, o):
            errs.append(fe.forbidden("spec", "resources for non-sidecar init containers are immutable"))
        munged_init.append(container)
    if errs:
        return errs
    munged = {**new_spec, "containers": munged_regular, "initContainers": munged_init}
    if not semantic_equal(munged, old_spec):
        errs.append(fe.forbidden("spec", "only cpu and memory resources are mutable"))
    return errs
