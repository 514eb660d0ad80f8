"""The generic registry without HTTP: the create and update pipelines call the strategy's hooks in
upstream's order, admission runs between defaulting and validation, and writes are stamped and stored.

A test strategy records each hook it sees (upstream's store_test.go proves its hooks ran the same way)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.pod import POD
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import BadRequest, Conflict, Invalid, NotFound
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import Admission, Attributes
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.storage.store import Store


class Recording(Strategy):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def default(self, obj: JSON) -> None:
        self.calls.append("default")
        obj.setdefault("spec", {}).setdefault("schedulerName", "defaulted")

    def prepare_for_create(self, obj: JSON) -> None:
        self.calls.append("prepare_for_create")
        obj["metadata"].setdefault("labels", {})["prepare_create"] = "true"

    def validate(self, obj: JSON) -> list[FieldError]:
        self.calls.append("validate")
        if obj.get("spec", {}).get("hostname") == "bad":
            return [fe.invalid("spec.hostname", "bad", "must not be bad")]
        return []

    def canonicalize(self, obj: JSON) -> None:
        self.calls.append("canonicalize")

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        self.calls.append("prepare_for_update")
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        self.calls.append("validate_update")
        return []


class RecordingAdmission:
    def __init__(self, strategy: Recording) -> None:
        self.strategy = strategy
        self.seen: list[tuple[str, str]] = []

    def admit(self, attributes: Attributes) -> None:
        self.strategy.calls.append("admit")
        self.seen.append((attributes.operation, attributes.name))


def registry() -> tuple[Registry, Recording, RecordingAdmission]:
    strategy = Recording()
    plugin = RecordingAdmission(strategy)
    kind = replace(POD, info=ResourceInfo("widgets", "Pod", namespaced=True, singular="widget",
                                                   definition="io.k8s.api.core.v1.Pod"),
                   strategy=strategy)
    store = Store()
    return Registry(store, kind, Clock(), IdSource(7), Admission([plugin])), strategy, plugin


def body(name: str = "w", **fields: Any) -> JSON:
    return {"metadata": {"name": name}, **fields}


def test_create_runs_default_admission_then_the_strategy_in_upstreams_order() -> None:
    widgets, strategy, plugin = registry()
    created = widgets.create("default", body(), WriteOptions(field_manager="test"))
    assert strategy.calls == ["default", "admit", "prepare_for_create", "validate", "canonicalize"]
    assert plugin.seen == [("CREATE", "w")]
    meta = created["metadata"]
    assert (meta["namespace"], meta["labels"], meta["resourceVersion"]) == ("default", {"prepare_create": "true"}, "1")
    assert meta["uid"] and meta["creationTimestamp"]
    assert [entry["manager"] for entry in meta["managedFields"]] == ["test"]
    assert widgets.get("default", "w") == created


def test_an_invalid_create_stores_nothing() -> None:
    widgets, _strategy, _plugin = registry()
    with pytest.raises(Invalid) as invalid:
        widgets.create("default", body(spec={"hostname": "bad"}), WriteOptions())
    assert invalid.value.message == 'Pod "w" is invalid: spec.hostname: Invalid value: "bad": must not be bad'
    assert widgets.store.resource_version == 0


def test_update_keeps_what_a_client_may_not_change_and_runs_the_update_hooks() -> None:
    widgets, strategy, plugin = registry()
    created = widgets.create("default", body(status={"phase": "kept"}), WriteOptions())
    strategy.calls.clear()
    sent = orjson.loads(orjson.dumps(created))
    sent["status"] = {"phase": "sent"}
    sent["metadata"]["uid"] = ""
    sent["metadata"]["creationTimestamp"] = "2000-01-01T00:00:00Z"
    sent["metadata"]["labels"]["new"] = "yes"
    updated = widgets.update("default", "w", sent, WriteOptions())
    assert strategy.calls == ["default", "admit", "prepare_for_update", "validate_update", "canonicalize"]
    assert plugin.seen[-1] == ("UPDATE", "w")
    assert updated["metadata"]["uid"] == created["metadata"]["uid"]
    assert updated["metadata"]["creationTimestamp"] == created["metadata"]["creationTimestamp"]
    assert updated["metadata"]["labels"]["new"] == "yes"
    assert updated["metadata"]["resourceVersion"] == "2"


def test_a_stale_resource_version_is_a_conflict_before_any_hook_runs() -> None:
    widgets, strategy, _plugin = registry()
    created = widgets.create("default", body(), WriteOptions())
    changed = orjson.loads(orjson.dumps(created))
    changed["metadata"]["labels"]["changed"] = "yes"
    widgets.update("default", "w", changed, WriteOptions())
    strategy.calls.clear()
    with pytest.raises(Conflict):
        widgets.update("default", "w", created, WriteOptions())  # still at version 1
    assert strategy.calls == ["default"]  # decoding defaults; nothing after the precondition


def test_an_update_that_changes_nothing_stores_nothing() -> None:
    widgets, _strategy, _plugin = registry()
    created = widgets.create("default", body(), WriteOptions())
    unchanged = widgets.update("default", "w", created, WriteOptions())
    assert unchanged["metadata"]["resourceVersion"] == "1"
    assert widgets.store.resource_version == 1


def test_update_of_a_missing_object_or_a_mismatched_name_is_refused() -> None:
    widgets, _strategy, _plugin = registry()
    with pytest.raises(NotFound):
        widgets.update("default", "w", body(), WriteOptions())
    with pytest.raises(BadRequest):
        widgets.update("default", "other", body(), WriteOptions())


def test_dry_run_writes_nothing() -> None:
    widgets, _strategy, _plugin = registry()
    widgets.create("default", body(), WriteOptions(dry_run=True))
    assert widgets.store.resource_version == 0
    assert widgets.find("default", "w") is None


def test_delete_passes_admission_and_finalizers_hold_the_object() -> None:
    widgets, _strategy, plugin = registry()
    widgets.create("default", body(metadata={"name": "w", "finalizers": ["example.com/hold"]}),
                   WriteOptions())
    held, gone = widgets.delete("default", "w", DeleteOptions())
    assert not gone and held["metadata"]["deletionTimestamp"]
    assert plugin.seen[-1] == ("DELETE", "w")
    held["metadata"]["finalizers"] = []
    widgets.update("default", "w", held, WriteOptions())
    assert widgets.find("default", "w") is None  # the update removing the last finalizer deleted it


def test_a_subresource_is_the_same_storage_with_another_strategy() -> None:
    class KeepStatusOnly(Recording):
        def prepare_for_update(self, new: JSON, old: JSON) -> None:
            new["spec"] = old.get("spec", {})

    widgets, _strategy, _plugin = registry()
    kind: Kind = replace(widgets.kind, subresource_strategies={"status": KeepStatusOnly()})
    main = Registry(widgets.store, kind, widgets.clock, widgets.ids, widgets.admission)
    status = main.subresource("status")
    created = main.create("default", body(spec={"nodeName": "a"}), WriteOptions())
    created["spec"] = {"nodeName": "b"}
    created["status"] = {"phase": "Running"}
    updated = status.update("default", "w", created, WriteOptions())
    # the pod schema's spec: Go writes the unset containers list as null
    assert updated["spec"] == {"nodeName": "a", "schedulerName": "defaulted", "containers": None}
    assert updated["status"] == {"phase": "Running"}
    assert main.store.resource_version == 2
