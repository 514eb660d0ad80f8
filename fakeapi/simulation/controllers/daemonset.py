"""The daemonset controller (daemonset-controller, user daemon-set-controller), after upstream's
pkg/controller/daemon.

A DaemonSet runs one pod on every node its template fits (its nodeSelector and required node affinity, and
the node's NoSchedule and NoExecute taints against its tolerations plus those upstream adds to every daemon
pod: not-ready and unreachable NoExecute, the pressure and unschedulable NoSchedule taints, and
network-unavailable for host-network pods, all `Exists`). Each pod (`<ds>-<5 random>`, labelled with the
`controller-revision-hash` of the template's ControllerRevision and `pod-template-generation`) is pinned to
its node by a required `metadata.name` node affinity and bound by the scheduler. A node that stops fitting
loses its pod (unless the pod tolerates the node's NoExecute taints: it keeps running), a failed pod is
deleted (`FailedDaemonPod`) and made again, a second pod on a node is deleted. RollingUpdate replaces old
pods within maxUnavailable (not available ones first); with maxSurge, a new pod starts beside the old one
(on at most maxSurge nodes at a time, at once where the old pod is unavailable) and the old one is deleted
once the new one is available. OnDelete waits for the user. Old revisions beyond revisionHistoryLimit are
deleted.
"""

from __future__ import annotations

import copy
from datetime import datetime

from fakeapi.machinery.types import JSON
from fakeapi.simulation import predicates
from fakeapi.simulation.controllers import history
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.deployment.util import int_or_percent
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.podcontrol import (
    PodControl,
    claim_pods,
    controller_ref,
    pod_from_template,
    reference,
    selector,
)
from fakeapi.simulation.controllers.pods import Pod

SERVICE_ACCOUNT = "daemon-set-controller"
COMPONENT = "daemonset-controller"
HASH_LABEL = "controller-revision-hash"
GENERATION_LABEL = "pod-template-generation"
TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "NoExecute"
DAEMON_TOLERATIONS = (
    ("node.kubernetes.io/not-ready", NO_EXECUTE), ("node.kubernetes.io/unreachable", NO_EXECUTE),
    ("node.kubernetes.io/disk-pressure", NO_SCHEDULE), ("node.kubernetes.io/memory-pressure", NO_SCHEDULE),
    ("node.kubernetes.io/pid-pressure", NO_SCHEDULE), ("node.kubernetes.io/unschedulable", NO_SCHEDULE),
)
HOST_NETWORK_TOLERATION = ("node.kubernetes.io/network-unavailable", NO_SCHEDULE)


class DaemonSetController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.pod_control = PodControl(self.client, self.events)
        self.sets: Informer[JSON] = context.informers.objects("daemonsets.apps")
        self.revisions: Informer[JSON] = context.informers.objects(history.REVISIONS)
        self.pods: Informer[Pod] = context.informers.pods()
        self.nodes: Informer[JSON] = context.informers.objects("nodes")
        self.sets.add_handler(self._set_changed)
        self.pods.add_handler(self._pod_changed)
        self.nodes.add_handler(self._node_changed)

    def start(self) -> None:
        for ds in self.sets.items():
            self._queue(_key(ds))

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
        if ref is not None and ref.get("kind") == "DaemonSet":
            self._queue((pod.namespace, str(ref.get("name", ""))))

    def _node_changed(self, old: JSON | None, new: JSON | None) -> None:
        if old is not None and new is not None and _scheduling(old) == _scheduling(new):
            return
        for ds in self.sets.items():
            self._queue(_key(ds))

    # ---- the sync

    def sync(self, namespace: str, name: str) -> None:
        stored = self.sets.get(namespace, name)
        if stored is None:
            return
        ds = copy.deepcopy(stored)
        uid = ds["metadata"]["uid"]
        match = selector((ds.get("spec") or {}).get("selector"))
        candidates = self.pods.controlled_by(uid) + [pod for pod in self.pods.orphans(namespace) if pod.active]
        pods = claim_pods(self.client, ds, match, candidates)
        current, old_revisions, collisions = history.current(self.client, self.revisions, ds, HASH_LABEL)
        revision_hash = current["metadata"]["labels"][HASH_LABEL]
        if collisions != (ds.get("status") or {}).get("collisionCount"):
            ds.setdefault("status", {})["collisionCount"] = collisions
        by_node = self._pods_by_node(pods)
        nodes = sorted(self.nodes.items(), key=lambda node: node["metadata"]["name"])
        if not ds["metadata"].get("deletionTimestamp"):
            self._manage(ds, nodes, by_node, revision_hash)
            if ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate":
                self._rolling_update(ds, nodes, self._pods_by_node(self._owned(ds)), revision_hash)
            self._cleanup_history(ds, old_revisions)
        self._update_status(ds, nodes, self._pods_by_node(self._owned(ds)), revision_hash)

    def _owned(self, ds: JSON) -> list[Pod]:
        return self.pods.controlled_by(ds["metadata"]["uid"])

    def _pods_by_node(self, pods: list[Pod]) -> dict[str, list[Pod]]:
        by_node: dict[str, list[Pod]] = {}
        for pod in sorted(pods, key=lambda p: (p.created, p.name)):
            node = pod.node or _target_node(pod)
            if node:
                by_node.setdefault(node, []).append(pod)
        return by_node

    def _manage(self, ds: JSON, nodes: list[JSON], by_node: dict[str, list[Pod]], revision_hash: str) -> None:
        """manage: a pod for each node that should run one, none on the others."""
        namespace = ds["metadata"].get("namespace", "")
        to_create: list[str] = []
        to_delete: list[Pod] = []
        for node in nodes:
            node_name = node["metadata"]["name"]
            should_run, keep_running = should_run_on(ds, node)
            daemon_pods = by_node.get(node_name, [])
            if should_run and not daemon_pods:
                to_create.append(node_name)
            elif keep_running:
                running = []
                for pod in daemon_pods:
                    if pod.deleting:
                        continue
                    if pod.phase == "Failed":
                        self.events.warning(reference(ds), "FailedDaemonPod", f"Found failed daemon pod "
                                            f"{pod.namespace}/{pod.name} on node {node_name}, will try to kill it")
                        to_delete.append(pod)
                    elif pod.phase == "Succeeded":
                        to_delete.append(pod)
                    else:
                        running.append(pod)
                to_delete.extend(_extra_pods(ds, running, revision_hash, self.context.now()))
            elif daemon_pods:
                to_delete.extend(pod for pod in daemon_pods if not pod.deleting)
        for pod in to_delete:
            self.pod_control.delete(namespace, pod.name, ds)
        self._create_on(ds, to_create, revision_hash)

    def _create_on(self, ds: JSON, node_names: list[str], revision_hash: str) -> None:
        """syncNodes: a pod of the current revision on each of these nodes."""
        namespace = ds["metadata"].get("namespace", "")
        template = (ds.get("spec") or {}).get("template") or {}
        for node_name in node_names:
            manifest = pod_from_template(template, ds, controller_ref(ds))
            labels = manifest["metadata"].setdefault("labels", {})
            generation = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION)
            if generation is not None:
                labels[GENERATION_LABEL] = str(generation)
            labels[HASH_LABEL] = revision_hash
            spec: JSON = manifest["spec"]
            add_daemon_tolerations(spec)
            pin_to_node(spec, node_name)
            if self.pod_control.create(namespace, manifest, ds) is None:
                break

    def _rolling_update(self, ds: JSON, nodes: list[JSON], by_node: dict[str, list[Pod]], revision_hash: str) -> None:
        """rollingUpdate without surge: delete old pods within maxUnavailable (old unavailable ones always);
        the next sync makes their replacements once they are gone."""
        spec: JSON = ds.get("spec") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.context.now()
        desired = sum(1 for node in nodes if should_run_on(ds, node)[0])
        rolling: JSON = (spec.get("updateStrategy") or {}).get("rollingUpdate") or {}
        max_surge = int_or_percent(rolling.get("maxSurge") or 0, desired, True)
        if max_surge > 0:
            self._surge(ds, nodes, by_node, revision_hash, max_surge)
            return
        max_unavailable = int_or_percent(rolling.get("maxUnavailable", 1), desired, True)
        unavailable = 0
        replace: list[Pod] = []
        candidates: list[Pod] = []
        for node_name in sorted(by_node):
            pods = [pod for pod in by_node[node_name] if not pod.deleting]
            new = [pod for pod in pods if pod.labels.get(HASH_LABEL) == revision_hash]
            old = [pod for pod in pods if pod.labels.get(HASH_LABEL) != revision_hash]
            if len(new) > 1 or len(old) > 1 or (new and old) or not pods:
                unavailable += 1
            elif new:
                if not new[0].available(min_ready, now):
                    unavailable += 1
            elif not old[0].available(min_ready, now):
                replace.append(old[0])
            elif unavailable < max_unavailable:
                candidates.append(old[0])
        room = max(0, min(max_unavailable - unavailable, len(candidates)))
        namespace = ds["metadata"].get("namespace", "")
        for pod in replace + candidates[:room]:
            self.pod_control.delete(namespace, pod.name, ds)

    def _surge(self, ds: JSON, nodes: list[JSON], by_node: dict[str, list[Pod]], revision_hash: str,
               max_surge: int) -> None:
        """rollingUpdate with surge: a new pod beside each old one, at once where the old one is unavailable
        and on at most maxSurge nodes otherwise; an old pod goes once the new one on its node is available."""
        min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        now = self.context.now()
        fits = {node["metadata"]["name"]: should_run_on(ds, node)[0] for node in nodes}
        to_delete: list[Pod] = []
        allowed: list[str] = []
        candidates: list[str] = []
        surging = 0
        for node_name in sorted(by_node):
            pods = [pod for pod in by_node[node_name] if not pod.deleting]
            new = [pod for pod in pods if pod.labels.get(HASH_LABEL) == revision_hash]
            old = [pod for pod in pods if pod.labels.get(HASH_LABEL) != revision_hash]
            if len(new) > 1 or len(old) > 1:
                surging += 1  # the manage loop cleans this node up
                continue
            if not old:
                continue
            if not new:
                if not old[0].available(min_ready, now):
                    if fits.get(node_name):
                        allowed.append(node_name)
                    else:
                        to_delete.append(old[0])
                elif fits.get(node_name) and surging < max_surge:
                    candidates.append(node_name)
            elif not new[0].available(min_ready, now):
                surging += 1  # waiting for the new pod to be available
            else:
                to_delete.append(old[0])
        room = max(0, min(max_surge - surging, len(candidates)))
        namespace = ds["metadata"].get("namespace", "")
        for pod in to_delete:
            self.pod_control.delete(namespace, pod.name, ds)
        self._create_on(ds, allowed + candidates[:room], revision_hash)

    def _cleanup_history(self, ds: JSON, old: list[JSON]) -> None:
        limit = int((ds.get("spec") or {}).get("revisionHistoryLimit", 10))
        live = {pod.labels.get(HASH_LABEL) for pod in self._owned(ds)}
        unused = [revision for revision in old
                  if revision["metadata"].get("labels", {}).get(HASH_LABEL) not in live]
        for revision in unused[:max(0, len(unused) - limit)]:
            history.delete(self.client, revision)

    def _update_status(self, ds: JSON, nodes: list[JSON], by_node: dict[str, list[Pod]], revision_hash: str) -> None:
        spec: JSON = ds.get("spec") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.context.now()
        desired = current = misscheduled = ready = available = updated = 0
        generation = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION)
        for node in nodes:
            should_run, _keep = should_run_on(ds, node)
            pods = by_node.get(node["metadata"]["name"], [])
            if should_run:
                desired += 1
                if pods:
                    current += 1
                    pod = pods[0]
                    if pod.ready:
                        ready += 1
                        if pod.available(min_ready, now):
                            available += 1
                    if pod.labels.get(HASH_LABEL) == revision_hash or (
                            generation is not None and pod.labels.get(GENERATION_LABEL) == str(generation)):
                        updated += 1
            elif pods:
                misscheduled += 1
        status: JSON = dict(ds.get("status") or {})
        status.update(desiredNumberScheduled=desired, currentNumberScheduled=current, numberMisscheduled=misscheduled,
                      numberReady=ready, updatedNumberScheduled=updated, numberAvailable=available,
                      numberUnavailable=desired - available,
                      observedGeneration=int(ds["metadata"].get("generation") or 0))
        stored = self.sets.get(ds["metadata"].get("namespace", ""), ds["metadata"]["name"])
        if stored is None or _same(stored.get("status") or {}, status):
            return
        ds["status"] = status
        ds["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
        self.client.update("daemonsets", ds["metadata"].get("namespace", ""), ds["metadata"]["name"], ds,
                           subresource="status", group="apps")


def should_run_on(ds: JSON, node: JSON) -> tuple[bool, bool]:
    """NodeShouldRunDaemonPod: (whether a pod should run there, whether a running one should stay)."""
    spec: JSON = ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
    name = node["metadata"]["name"]
    if spec.get("nodeName") and spec["nodeName"] != name:
        return False, False
    labels = node["metadata"].get("labels") or {}
    if not predicates.matches_node_selector(spec, name, labels):
        return False, False
    daemon_spec = copy.deepcopy(spec)
    add_daemon_tolerations(daemon_spec)
    tolerations = daemon_spec.get("tolerations") or []
    taints = (node.get("spec") or {}).get("taints") or []
    if predicates.first_untolerated(taints, tolerations, (NO_SCHEDULE, NO_EXECUTE)) is None:
        return True, True
    return False, predicates.first_untolerated(taints, tolerations, (NO_EXECUTE,)) is None


def add_daemon_tolerations(spec: JSON) -> None:
    """AddOrUpdateDaemonPodTolerations."""
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(HOST_NETWORK_TOLERATION)
    tolerations: list[JSON] = spec.setdefault("tolerations", [])
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        for index, existing in enumerate(tolerations):
            if existing.get("key") == key and existing.get("effect") == effect:
                tolerations[index] = toleration
                break
        else:
            tolerations.append(toleration)


def pin_to_node(spec: JSON, node: str) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity names the node."""
    terms = [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]
    affinity: JSON = spec.setdefault("affinity", {})
    node_affinity: JSON = affinity.setdefault("nodeAffinity", {})
    node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})["nodeSelectorTerms"] = terms


def _extra_pods(ds: JSON, running: list[Pod], revision_hash: str, now: datetime) -> list[Pod]:
    """The running pods of one node beyond the one it keeps. With maxSurge, an old pod and a new one may run
    together while the new one is not yet available and the old one is ready (upstream's podsShouldBeOnNode)."""
    rolling: JSON = (((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate")) or {}
    if rolling.get("maxSurge") in (None, 0, "0", "0%"):
        return running[1:]
    extra: list[Pod] = []
    oldest_new = oldest_old = None
    for pod in running:
        if pod.labels.get(HASH_LABEL) == revision_hash and oldest_new is None:
            oldest_new = pod
        elif pod.labels.get(HASH_LABEL) != revision_hash and oldest_old is None:
            oldest_old = pod
        else:
            extra.append(pod)
    min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
    if oldest_new is not None and oldest_old is not None and (
            not oldest_old.ready or oldest_new.available(min_ready, now)):
        extra.append(oldest_old)
    return extra


def _target_node(pod: Pod) -> str:
    """The node an unbound daemon pod is pinned to (GetTargetNodeName)."""
    spec: JSON = pod.obj().get("spec") or {}
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("operator") == "In" and field.get("values"):
                return str(field["values"][0])
    return ""


def _scheduling(node: JSON) -> tuple[object, ...]:
    """What decides where daemon pods run."""
    return (node["metadata"].get("labels"), (node.get("spec") or {}).get("taints"))


def _same(old: JSON, new: JSON) -> bool:
    def stored(status: JSON) -> JSON:
        return {key: value for key, value in status.items() if value not in (0, None)}

    return stored(old) == stored(new)


def _key(obj: JSON) -> Key:
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]
