"""The CustomResourceDefinition controllers of apiextensions-apiserver, as one API client:

* naming (NamingConditionController): a CRD's names are accepted unless another CRD of its group holds one
  of them (`NamesAccepted` False with `PluralConflict`, `KindConflict`...), then it is `Established`;
* serving: an established CRD's served versions become kinds of the API (`api.kinds`), so discovery,
  routing and the OpenAPI documents follow; a changed CRD is served anew;
* finalizing (CRDFinalizer): a deleted CRD's custom resources are deleted, then its
  `customresourcecleanup.apiextensions.k8s.io` finalizer is removed, which removes the CRD.

It works right after the write that calls for it has reached every store listener (the store's
`after_delivery`), so a CRD is established and served by the time its creation is answered: `kubectl
apply -f crd.yaml` followed by `kubectl apply -f cr.yaml` works as on a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import orjson

from fakeapi.kinds.customresource.definition import Names, is_true, storage_version
from fakeapi.kinds.customresourcedefinition.strategy import CLEANUP_FINALIZER, set_condition
from fakeapi.kinds.kind import Kind
from fakeapi.machinery.errors import NotFound, StatusError
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.kinds import KindRegistry
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.storage.store import Event

if TYPE_CHECKING:
    from fakeapi.kinds.customresource.kind import RulesCompiler

MANAGER = "kube-apiserver"
CRDS = "customresourcedefinitions.apiextensions.k8s.io"


class CustomResourceDefinitionController:
    def __init__(self, crds: Registry, kinds: KindRegistry, now: Callable[[], str],
                 rules_for: RulesCompiler | None = None, webhook_addresses: Mapping[str, str] | None = None) -> None:
        self.crds = crds
        self.status = crds.subresource("status")
        self.kinds = kinds
        self.now = now
        self.rules_for = rules_for
        self.webhook_addresses = webhook_addresses or {}
        # CRD name -> (the resourceVersion of the CRD served, the (group, version, resource) it serves)
        self._served: dict[str, tuple[str, list[tuple[str, str, str]]]] = {}
        self._instances: dict[str, str] = {}  # group resource of the instances -> CRD name

    def start(self) -> None:
        """Serve the CRDs a restarted server's store holds."""
        for data in self.crds.list_all():
            self.sync(orjson.loads(data)["metadata"]["name"])

    def on_event(self, event: Event) -> None:
        """Store listener: a CRD changed, or an instance of a CRD being deleted went."""
        resource = event.key.resource
        if resource == CRDS:
            name = event.key.name
        elif event.type == "DELETED" and resource in self._instances:
            name = self._instances[resource]
        else:
            return
        self.crds.store.after_delivery(lambda: self.sync(name))

    def sync(self, name: str) -> None:
        crd = self.crds.find("", name)
        if crd is None:
            self._stop_serving(name)
            return
        if crd["metadata"].get("deletionTimestamp"):
            self._finalize(crd)
            return
        crd = self._accept_names(crd)
        if is_true(crd, "Established"):
            self._serve(crd)

    # ---- naming and establishing

    def _accept_names(self, crd: JSON) -> JSON:
        spec: JSON = crd.get("spec") or {}
        status: JSON = crd.get("status") or {}
        requested = spec.get("names") or {}
        accepted = dict(status.get("acceptedNames") or {})
        if requested == accepted and is_true(crd, "Established"):
            return crd
        resources, kinds = self._names_in_group(str(spec.get("group") or ""), crd["metadata"]["name"])
        reason = message = ""
        new_names = dict(accepted)
        for field, used, conflict in (("plural", resources, "PluralConflict"),
                                      ("singular", resources, "SingularConflict")):
            if _taken(requested.get(field, ""), accepted.get(field, ""), used):
                reason, message = conflict, f'"{requested.get(field, "")}" is already in use'
            else:
                new_names[field] = requested.get(field, "")
        if requested.get("shortNames") != accepted.get("shortNames"):
            held = set(accepted.get("shortNames") or ())
            clashes = [f'"{short}" is already in use' for short in requested.get("shortNames") or ()
                       if short not in held and _taken(short, "", resources)]
            if clashes:
                reason = "ShortNamesConflict"
                message = clashes[0] if len(clashes) == 1 else "[" + ", ".join(clashes) + "]"
            elif requested.get("shortNames"):
                new_names["shortNames"] = requested["shortNames"]
            else:
                new_names.pop("shortNames", None)
        for field, conflict in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
            if _taken(requested.get(field, ""), accepted.get(field, ""), kinds):
                reason, message = conflict, f'"{requested.get(field, "")}" is already in use'
            else:
                new_names[field] = requested.get(field, "")
        if requested.get("categories"):
            new_names["categories"] = requested["categories"]
        else:
            new_names.pop("categories", None)
        updated = copy_json(crd)
        updated_status = updated.setdefault("status", {})
        updated_status["acceptedNames"] = _ordered_names(new_names)
        now = self.now()
        if reason:
            set_condition(updated, {"type": "NamesAccepted", "status": "False", "reason": reason,
                                    "message": message}, now)
        else:
            set_condition(updated, {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                                    "message": "no conflicts found"}, now)
        if not is_true(crd, "Established"):
            if reason:
                set_condition(updated, {"type": "Established", "status": "False", "reason": "NotAccepted",
                                        "message": "not all names are accepted"}, now)
            else:
                set_condition(updated, {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                                        "message": "the initial names have been accepted"}, now)
        _order_status(updated_status)
        if updated == crd:
            return crd
        try:
            return self.status.update("", crd["metadata"]["name"], updated, WriteOptions(field_manager=MANAGER))
        except StatusError:
            return crd  # a conflict: the write it lost to brings another sync

    def _names_in_group(self, group: str, name: str) -> tuple[set[str], set[str]]:
        resources: set[str] = set()
        kinds: set[str] = set()
        for data in self.crds.list_all():
            other = orjson.loads(data)
            if other["metadata"]["name"] == name or (other.get("spec") or {}).get("group") != group:
                continue
            accepted = (other.get("status") or {}).get("acceptedNames") or {}
            resources.update(value for value in (accepted.get("plural"), accepted.get("singular")) if value)
            resources.update(accepted.get("shortNames") or ())
            kinds.update(value for value in (accepted.get("kind"), accepted.get("listKind")) if value)
        return resources, kinds

    # ---- serving

    def _serve(self, crd: JSON) -> None:
        name = crd["metadata"]["name"]
        version = crd["metadata"]["resourceVersion"]
        served = self._served.get(name)
        if served is not None and served[0] == version:
            return
        from fakeapi.kinds.customresource.kind import custom_resource_kinds  # (loaded with the first CRD)

        kinds = custom_resource_kinds(crd, self.rules_for, self.webhook_addresses)
        self._stop_serving(name)
        added: list[tuple[str, str, str]] = []
        for kind in kinds:
            if self._add(kind):
                added.append((kind.info.group, kind.info.version, kind.info.resource))
        self._served[name] = (version, added)
        names = Names.of((crd.get("status") or {}).get("acceptedNames"))
        self._instances[f"{names.plural}.{(crd.get('spec') or {}).get('group', '')}"] = name

    def _add(self, kind: Kind) -> bool:
        try:
            self.kinds.add(kind)
        except ValueError:  # a built-in (or another CRD's) resource of that group version: not served twice
            return False
        return True

    def _stop_serving(self, name: str) -> None:
        served = self._served.pop(name, None)
        if served is None:
            return
        for group, version, resource in served[1]:
            self.kinds.remove(group, version, resource)

    # ---- finalizing

    def _finalize(self, crd: JSON) -> None:
        name = crd["metadata"]["name"]
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or ()):
            return
        if is_true(crd, "Established"):
            crd = self._set_terminating(crd, "True", "InstanceDeletionInProgress",
                                        "CustomResource deletion is in progress")
            if self._delete_instances(crd):
                return  # some are held by their finalizers: their removal brings another sync
            crd = self._set_terminating(crd, "False", "InstanceDeletionCompleted", "removed all instances")
        else:
            crd = self._set_terminating(crd, "False", "NeverEstablished", "resource was never established")
        self._stop_serving(name)
        updated = copy_json(crd)
        updated["metadata"]["finalizers"] = [f for f in crd["metadata"]["finalizers"] if f != CLEANUP_FINALIZER]
        try:
            self.crds.update("", name, updated, WriteOptions(field_manager=MANAGER))
        except StatusError:
            pass  # changed meanwhile: that change brings another sync

    def _set_terminating(self, crd: JSON, status: str, reason: str, message: str) -> JSON:
        updated = copy_json(crd)
        set_condition(updated, {"type": "Terminating", "status": status, "reason": reason, "message": message},
                      self.now())
        if updated == crd:
            return crd
        try:
            return self.status.update("", crd["metadata"]["name"], updated, WriteOptions(field_manager=MANAGER))
        except StatusError:
            return crd

    def _delete_instances(self, crd: JSON) -> int:
        """Delete every custom resource of the CRD; how many remain (held by finalizers)."""
        names = Names.of((crd.get("status") or {}).get("acceptedNames"))
        group = str((crd.get("spec") or {}).get("group") or "")
        registry = self.kinds.get(names.plural, group, storage_version(crd))
        if registry is None:
            for group_name, version, resource in self._served.get(crd["metadata"]["name"], ("", []))[1]:
                registry = self.kinds.get(resource, group_name, version)
                break
        if registry is None:
            return 0
        remaining = 0
        for data in registry.list_all():
            meta = orjson.loads(data)["metadata"]
            try:
                _obj, gone = registry.delete(meta.get("namespace", ""), meta["name"], DeleteOptions())
            except NotFound:
                continue
            except StatusError:  # (refused, by an admission policy say: the definition waits for it)
                remaining += 1
                continue
            remaining += not gone
        return remaining


def _taken(requested: str, accepted: str, used: set[str]) -> bool:
    return requested != accepted and requested in used


def _ordered_names(names: JSON) -> JSON:
    order = ("plural", "singular", "shortNames", "kind", "listKind", "categories")
    return {key: names[key] for key in order if names.get(key)}


def _order_status(status: JSON) -> None:
    ordered: JSON = {key: status[key] for key in ("conditions", "acceptedNames", "storedVersions") if key in status}
    ordered.update((key, value) for key, value in status.items() if key not in ordered)
    status.clear()
    status.update(ordered)
