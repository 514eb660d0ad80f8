"""The ClusterRole aggregation controller (upstream pkg/controller/clusterroleaggregation): a ClusterRole with
an `aggregationRule` gets as its rules those of every other ClusterRole its selectors match, in name order,
each rule once. It follows ClusterRole changes as they are stored, and writes through the registry as the
controller's updates (field manager `clusterrole-aggregator`).

As the other controllers here, the work runs right after the change that calls for it reached every store
listener, so an aggregated role is complete by the time the role it gathers from is answered."""

from __future__ import annotations

import orjson

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.labelselector import selector_matches
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Event

MANAGER = "clusterrole-aggregator"


class ClusterRoleAggregation:
    def __init__(self, cluster_roles: Registry) -> None:
        self.cluster_roles = cluster_roles
        self._pending = False

    def on_event(self, event: Event) -> None:
        """Store listener: any ClusterRole change may change what an aggregated role gathers."""
        if event.key.resource != self.cluster_roles.kind.storage_resource or self._pending:
            return
        self._pending = True
        self.cluster_roles.store.after_delivery(self.sync)

    def sync(self) -> None:
        self._pending = False
        roles = sorted((orjson.loads(data) for data in self.cluster_roles.list_all()),
                       key=lambda role: role["metadata"]["name"])
        for role in roles:
            selectors = (role.get("aggregationRule") or {}).get("clusterRoleSelectors")
            if not selectors:
                continue
            rules = aggregated_rules(role, roles, selectors)
            if rules != (role.get("rules") or []):
                self._write(role, rules)

    def _write(self, role: JSON, rules: list[JSON]) -> None:
        role = {**role, "rules": rules}
        try:
            self.cluster_roles.update("", role["metadata"]["name"], role, WriteOptions(field_manager=MANAGER))
        except StatusError:
            pass  # changed meanwhile: the change's own event syncs again


def aggregated_rules(role: JSON, roles: list[JSON], selectors: list[JSON]) -> list[JSON]:
    name = role["metadata"]["name"]
    rules: list[JSON] = []
    for other in roles:
        if other["metadata"]["name"] == name:
            continue
        labels = other["metadata"].get("labels") or {}
        if not any(selector_matches(selector, labels) for selector in selectors):
            continue
        for rule in other.get("rules") or []:
            if rule not in rules:
                rules.append(rule)
    return rules
