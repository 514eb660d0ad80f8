"""The statefulset controller (statefulset-controller), after upstream's pkg/controller/statefulset.

A StatefulSet's pods are `<set>-<ordinal>` (from spec.ordinals.start), with hostname the pod's name, subdomain
the serviceName, the labels `controller-revision-hash` (the revision's name), `statefulset.kubernetes.io/pod-name`
and `apps.kubernetes.io/pod-index`, and a volume per volumeClaimTemplate naming the claim
`<template>-<set>-<ordinal>`, that claim made first, owned as persistentVolumeClaimRetentionPolicy says
(statefulclaims.py). With
OrderedReady, a pod is made only once every lower ordinal is Running and Ready (and available for
minReadySeconds), and pods beyond `replicas` are deleted from the highest ordinal, one at a time; Parallel
makes and deletes them at once. A failed pod is deleted and made again. The template's ControllerRevisions
give `currentRevision` and `updateRevision`; RollingUpdate replaces pods from the highest ordinal down to the
partition, one at a time, each once the previous is ready; OnDelete waits for the user. Events are upstream's
(`create Pod web-0 in StatefulSet web successful`).
"""

from __future__ import annotations

import copy

from fakeapi.machinery.errors import AlreadyExists, NotFound, StatusError
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers import history
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.podcontrol import claim_pods, controller_ref, reference, selector
from fakeapi.simulation.controllers.pods import Pod
from fakeapi.simulation.controllers.statefulclaims import (
    claim_name,
    claim_templates,
    claims_for,
    owners_for,
    template_name,
)

SERVICE_ACCOUNT = COMPONENT = "statefulset-controller"
REVISION_LABEL = "controller-revision-hash"
REVISION_HASH_LABEL = "controller.kubernetes.io/hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


class StatefulSetController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.sets: Informer[JSON] = context.informers.objects("statefulsets.apps")
        self.revisions: Informer[JSON] = context.informers.objects(history.REVISIONS)
        self.pods: Informer[Pod] = context.informers.pods()
        self.claims: Informer[JSON] = context.informers.objects("persistentvolumeclaims")
        self.sets.add_handler(self._set_changed)
        self.pods.add_handler(self._pod_changed)

    def start(self) -> None:
        for sts in self.sets.items():
            self._queue(_key(sts))

    def stop(self) -> None:
        pass

    def _queue(self, key: Key) -> None:
        self.work.soon((COMPONENT, key), lambda: self.sync(*key))

    def _set_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is not None:
            self._queue(_key(new))

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        pod = new if new is not None else old
        assert pod is not None
        ref = next((ref for ref in pod.owners if ref.get("controller")), None)
        if ref is not None and ref.get("kind") == "StatefulSet":
            self._queue((pod.namespace, str(ref.get("name", ""))))
        if new is not None and old is not None and not old.ready and new.ready and ref is not None:
            sts = self.sets.get(pod.namespace, str(ref.get("name", "")))
            min_ready = int(((sts or {}).get("spec") or {}).get("minReadySeconds") or 0)
            if min_ready > 0:
                key = (pod.namespace, str(ref.get("name", "")))
                self.work.later(min_ready + 1, lambda: self.sync(*key))

    # ---- the sync

    def sync(self, namespace: str, name: str) -> None:
        stored = self.sets.get(namespace, name)
        if stored is None:
            return
        sts = copy.deepcopy(stored)
        spec: JSON = sts.get("spec") or {}
        uid = sts["metadata"]["uid"]
        candidates = self.pods.controlled_by(uid) + [pod for pod in self.pods.orphans(namespace) if pod.active]
        claim_pods(self.client, sts, selector(spec.get("selector")),
                   [pod for pod in candidates if _ordinal(sts, pod.name) is not None])
        update, _old, collisions = history.current(self.client, self.revisions, sts, REVISION_HASH_LABEL)
        status: JSON = sts.setdefault("status", {})
        current_name = status.get("currentRevision") or update["metadata"]["name"]
        current = self.revisions.get(namespace, current_name) or update
        if not sts["metadata"].get("deletionTimestamp"):
            self._update_pods(sts, current, update)
        self._update_status(sts, current, update, collisions)

    def _pods(self, sts: JSON) -> dict[int, Pod]:
        pods: dict[int, Pod] = {}
        for pod in self.pods.controlled_by(sts["metadata"]["uid"]):
            ordinal = _ordinal(sts, pod.name)
            if ordinal is not None:
                pods[ordinal] = pod
        return pods

    def _update_pods(self, sts: JSON, current: JSON, update: JSON) -> None:
        """updateStatefulSet: make missing pods and replace failed ones, delete those beyond the replicas,
        then roll the update, in order unless the policy is Parallel."""
        spec: JSON = sts.get("spec") or {}
        start = int((spec.get("ordinals") or {}).get("start") or 0)
        replicas = int(spec.get("replicas", 1))
        ordered = spec.get("podManagementPolicy", "OrderedReady") == "OrderedReady"
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.context.now()
        pods = self._pods(sts)
        wanted = range(start, start + replicas)
        for ordinal in wanted:
            pod = pods.get(ordinal)
            if pod is not None and pod.terminal and not pod.deleting:
                self._delete_pod(sts, pod)  # (upstream: RecreatingFailedPod) made again once gone
                if ordered:
                    return
                continue
            if pod is None:
                self._create_pod(sts, ordinal, current, update)
                if ordered:
                    return
                continue
            self._update_claim_owners(sts, pod.name, pod.uid, scaled_down=False)
            if pod.deleting and ordered:
                return
            if ordered and not (pod.phase == "Running" and pod.available(min_ready, now)):
                return
        condemned = sorted((ordinal for ordinal in pods if ordinal not in wanted), reverse=True)
        for ordinal in condemned:
            pod = pods[ordinal]
            if pod.deleting:
                if ordered:
                    return
                continue
            self._update_claim_owners(sts, pod.name, pod.uid, scaled_down=True)
            self._delete_pod(sts, pod)
            if ordered:
                return
        strategy: JSON = spec.get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return
        partition = int((strategy.get("rollingUpdate") or {}).get("partition") or 0)
        update_name = update["metadata"]["name"]
        for ordinal in sorted((o for o in wanted if o - start >= partition), reverse=True):
            pod = pods.get(ordinal)
            if pod is None or pod.deleting:
                return
            if pod.labels.get(REVISION_LABEL) != update_name:
                self._delete_pod(sts, pod)
                return
            if not (pod.phase == "Running" and pod.available(min_ready, now)):
                return

    def _create_pod(self, sts: JSON, ordinal: int, current: JSON, update: JSON) -> None:
        spec: JSON = sts.get("spec") or {}
        strategy: JSON = spec.get("updateStrategy") or {}
        partition = (strategy.get("rollingUpdate") or {}).get("partition")
        start = int((spec.get("ordinals") or {}).get("start") or 0)
        use_current = (strategy.get("type", "RollingUpdate") == "RollingUpdate" and partition is not None
                       and ordinal - start < int(partition)
                       and current["metadata"]["name"] != update["metadata"]["name"])
        revision = current if use_current else update
        pod = self._pod(sts, ordinal, revision)
        namespace = sts["metadata"].get("namespace", "")
        self._create_claims(sts, pod)
        try:
            created = self.client.create("pods", namespace, pod)
        except AlreadyExists:
            return
        except StatusError as error:
            self.events.warning(reference(sts), "FailedCreate", f"create Pod {pod['metadata']['name']} in "
                                f"StatefulSet {sts['metadata']['name']} failed error: {error.message}")
            raise
        self._update_claim_owners(sts, created["metadata"]["name"], created["metadata"].get("uid", ""),
                                  scaled_down=False)
        self.events.normal(reference(sts), "SuccessfulCreate",
                           f"create Pod {pod['metadata']['name']} in StatefulSet {sts['metadata']['name']} successful")

    def _pod(self, sts: JSON, ordinal: int, revision: JSON) -> JSON:
        """newStatefulSetPod from the revision's template: its identity, storage and revision label."""
        template: JSON = copy.deepcopy((((revision.get("data") or {}).get("spec") or {}).get("template"))
                                       or (sts.get("spec") or {}).get("template") or {})
        template.pop("$patch", None)
        name = f"{sts['metadata']['name']}-{ordinal}"
        template_meta: JSON = template.get("metadata") or {}
        labels = dict(template_meta.get("labels") or {})
        labels.update({POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
                       REVISION_LABEL: revision["metadata"]["name"]})
        meta: JSON = {"name": name, "labels": labels, "ownerReferences": [controller_ref(sts)]}
        for field in ("annotations", "finalizers"):
            if template_meta.get(field):
                meta[field] = template_meta[field]
        pod_spec: JSON = template.get("spec") or {}
        pod_spec["hostname"] = name
        service = (sts.get("spec") or {}).get("serviceName")
        if service:
            pod_spec["subdomain"] = service
        volumes: list[JSON] = [v for v in pod_spec.get("volumes") or []
                               if v.get("name") not in {template_name(c) for c in claim_templates(sts)}]
        for claim in claim_templates(sts):
            volumes.append({"name": template_name(claim), "persistentVolumeClaim": {
                "claimName": claim_name(claim, name)}})
        if volumes:
            pod_spec["volumes"] = volumes
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}

    def _create_claims(self, sts: JSON, pod: JSON) -> None:
        """createPersistentVolumeClaims: the pod's claims that are missing, before the pod."""
        namespace = sts["metadata"].get("namespace", "")
        for claim in claims_for(sts, pod["metadata"]["name"]):
            name = claim["metadata"]["name"]
            if self.claims.get(namespace, name) is not None:
                continue
            try:
                self.client.create("persistentvolumeclaims", namespace, claim)
            except AlreadyExists:
                continue
            except StatusError as error:
                self.events.warning(reference(sts), "FailedCreate", f"create Claim {name} for Pod "
                                    f"{pod['metadata']['name']} in StatefulSet {sts['metadata']['name']} failed "
                                    f"error: {error.message}")
                raise
            self.events.normal(reference(sts), "SuccessfulCreate", f"create Claim {name} Pod "
                               f"{pod['metadata']['name']} in StatefulSet {sts['metadata']['name']} success")

    def _update_claim_owners(self, sts: JSON, pod_name: str, pod_uid: str, scaled_down: bool) -> None:
        """UpdatePodClaimForRetentionPolicy: each claim of the pod owned as the retention policy says."""
        namespace = sts["metadata"].get("namespace", "")
        pod = {"metadata": {"name": pod_name, "uid": pod_uid}}
        for template in claim_templates(sts):
            stored = self.claims.get(namespace, claim_name(template, pod_name))
            if stored is None:
                continue
            owners = owners_for(stored, sts, pod, scaled_down)
            current = (stored.get("metadata") or {}).get("ownerReferences") or []
            if owners is None or owners == current:
                continue
            claim = copy.deepcopy(stored)
            if owners:
                claim["metadata"]["ownerReferences"] = owners
            else:
                claim["metadata"].pop("ownerReferences", None)
            try:
                self.client.update("persistentvolumeclaims", namespace, claim["metadata"]["name"], claim)
            except NotFound:
                continue

    def _delete_pod(self, sts: JSON, pod: Pod) -> None:
        try:
            self.client.delete("pods", pod.namespace, pod.name)
        except NotFound:
            return
        except StatusError as error:
            self.events.warning(reference(sts), "FailedDelete", f"delete Pod {pod.name} in StatefulSet "
                                f"{sts['metadata']['name']} failed error: {error.message}")
            raise
        self.events.normal(reference(sts), "SuccessfulDelete",
                           f"delete Pod {pod.name} in StatefulSet {sts['metadata']['name']} successful")

    def _update_status(self, sts: JSON, current: JSON, update: JSON, collisions: int | None) -> None:
        spec: JSON = sts.get("spec") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.context.now()
        pods = [pod for pod in self._pods(sts).values() if not pod.terminal]
        current_name, update_name = current["metadata"]["name"], update["metadata"]["name"]
        status: JSON = dict(sts.get("status") or {})
        ready = sum(1 for pod in pods if pod.phase == "Running" and pod.ready)
        available = sum(1 for pod in pods if pod.phase == "Running" and pod.available(min_ready, now))
        current_count = sum(1 for pod in pods if pod.labels.get(REVISION_LABEL) == current_name)
        updated = sum(1 for pod in pods if pod.labels.get(REVISION_LABEL) == update_name)
        replicas = int(spec.get("replicas", 1))
        if updated == replicas and ready == replicas and len(pods) == replicas:
            current_name, current_count = update_name, updated  # the update is complete
        status.update(observedGeneration=int(sts["metadata"].get("generation") or 0), replicas=len(pods),
                      readyReplicas=ready, currentReplicas=current_count, updatedReplicas=updated,
                      availableReplicas=available, currentRevision=current_name, updateRevision=update_name)
        if collisions is not None:
            status["collisionCount"] = collisions
        stored = self.sets.get(sts["metadata"].get("namespace", ""), sts["metadata"]["name"])
        if stored is None or _same(stored.get("status") or {}, status):
            return
        sts["status"] = status
        sts["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
        self.client.update("statefulsets", sts["metadata"].get("namespace", ""), sts["metadata"]["name"], sts,
                           subresource="status", group="apps")


def _ordinal(sts: JSON, pod_name: str) -> int | None:
    """getOrdinal: the number after the set's name, if the pod is named as one of its pods."""
    prefix = f"{sts['metadata']['name']}-"
    if not pod_name.startswith(prefix) or not pod_name[len(prefix):].isdigit():
        return None
    return int(pod_name[len(prefix):])


def _same(old: JSON, new: JSON) -> bool:
    def stored(status: JSON) -> JSON:
        return {key: value for key, value in status.items() if value not in (0, None, "")}

    return stored(old) == stored(new)


def _key(obj: JSON) -> Key:
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]
