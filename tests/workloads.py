"""Workload manifests and a strategy driver for the workload kinds' tests."""

from __future__ import annotations

import copy
from typing import Any

from fakeapi.kinds.kind import Kind

TEMPLATE: dict[str, Any] = {"metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}
SELECTOR: dict[str, Any] = {"matchLabels": {"app": "web"}}


def template(**spec: Any) -> dict[str, Any]:
    built = copy.deepcopy(TEMPLATE)
    built["spec"].update(spec)
    return built


def manifest(api_version: str, kind: str, name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name}, "spec": spec}


def deployment(name: str = "web", **spec: Any) -> dict[str, Any]:
    return manifest("apps/v1", "Deployment", name, **{"selector": SELECTOR, "template": template(), **spec})


def replica_set(name: str = "web", **spec: Any) -> dict[str, Any]:
    return manifest("apps/v1", "ReplicaSet", name, **{"selector": SELECTOR, "template": template(), **spec})


def stateful_set(name: str = "web", **spec: Any) -> dict[str, Any]:
    return manifest("apps/v1", "StatefulSet", name,
                    **{"serviceName": name, "selector": SELECTOR, "template": template(), **spec})


def daemon_set(name: str = "web", **spec: Any) -> dict[str, Any]:
    return manifest("apps/v1", "DaemonSet", name, **{"selector": SELECTOR, "template": template(), **spec})


def replication_controller(name: str = "web", **spec: Any) -> dict[str, Any]:
    return manifest("v1", "ReplicationController", name, **{"template": template(), **spec})


def job(name: str = "pi", **spec: Any) -> dict[str, Any]:
    return manifest("batch/v1", "Job", name, **{"template": template(restartPolicy="Never"), **spec})


def cron_job(name: str = "hourly", **spec: Any) -> dict[str, Any]:
    return manifest("batch/v1", "CronJob", name,
                    **{"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": template(restartPolicy="Never")}},
                       **spec})


def decoded(kind: Kind, obj: dict[str, Any]) -> dict[str, Any]:
    """A manifest as the server decodes it (Go's zero values of the value structs filled in)."""
    body = {"apiVersion": kind.info.api_version, "kind": kind.info.kind, **copy.deepcopy(obj)}
    result: dict[str, Any] = kind.compiled.decoder().decode(body, kind.info.kind).obj
    return result


def stored(kind: Kind, obj: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    """The object as a create would store it: decoded, defaulted, with its system fields, prepared (not
    validated)."""
    obj = decoded(kind, obj)
    meta = obj.setdefault("metadata", {})
    meta.setdefault("namespace", namespace)
    meta.setdefault("uid", "00000000-0000-0000-0000-000000000001")
    meta.setdefault("creationTimestamp", "2025-01-01T00:00:00Z")
    kind.strategy.default(obj)
    kind.strategy.prepare_for_create(obj)
    meta["resourceVersion"] = "5"
    return obj


def create_errors(kind: Kind, obj: dict[str, Any]) -> list[str]:
    """The messages of the create validation of a manifest, after defaulting and preparing it as the server does."""
    prepared = stored(kind, obj)
    prepared["metadata"].pop("resourceVersion")
    return [str(error) for error in kind.strategy.validate(prepared)]


def update_errors(kind: Kind, old: dict[str, Any], new: dict[str, Any], subresource: str = "") -> list[str]:
    """The messages of an update of a stored object to `new` (a changed copy of it), through the main resource or
    a subresource's strategy."""
    strategy = kind.subresource_strategies.get(subresource, kind.strategy) if subresource else kind.strategy
    new = decoded(kind, new)
    strategy.default(new)
    strategy.prepare_for_update(new, old)
    return [str(error) for error in strategy.validate_update(new, old)]
