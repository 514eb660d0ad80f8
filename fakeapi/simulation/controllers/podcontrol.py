"""What the workload controllers share (upstream's controller_utils and controller_ref_manager): owner
references, pods made from a template with their events, and claiming pods (adopting orphans that match a
selector, releasing those that no longer do)."""

from __future__ import annotations

import copy
from collections.abc import Callable

from fakeapi.machinery.errors import NotFound, StatusError
from fakeapi.machinery.labels import LabelSelector, parse_label_selector, selector_text
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client
from fakeapi.simulation.controllers.pods import Pod
from fakeapi.simulation.events import EventRecorder

NAMESPACE_TERMINATING_CAUSE = "NamespaceTerminating"


def reference(obj: JSON) -> JSON:
    """An ObjectReference to a stored object, as client-go's GetReference makes it for events."""
    meta: JSON = obj["metadata"]
    ref: JSON = {"kind": obj.get("kind", ""), "namespace": meta.get("namespace", ""), "name": meta["name"],
                 "uid": meta.get("uid", ""), "apiVersion": obj.get("apiVersion", ""),
                 "resourceVersion": meta.get("resourceVersion", "")}
    if not ref["namespace"]:
        del ref["namespace"]
    return ref


def controller_ref(obj: JSON) -> JSON:
    """metav1.NewControllerRef: the owner reference a controller gives what it makes."""
    return {"apiVersion": obj.get("apiVersion", ""), "kind": obj.get("kind", ""), "name": obj["metadata"]["name"],
            "uid": obj["metadata"].get("uid", ""), "controller": True, "blockOwnerDeletion": True}


def selector(label_selector: JSON | None) -> LabelSelector | None:
    """metav1.LabelSelectorAsSelector: None (matches nothing) for a missing selector; an empty one matches
    everything."""
    if label_selector is None:
        return None
    return parse_label_selector(selector_text(label_selector))


def map_selector(labels: dict[str, str] | None) -> LabelSelector | None:
    """A ReplicationController's selector, a map of labels (an empty one matches nothing there)."""
    if not labels:
        return None
    return parse_label_selector(",".join(f"{key}={value}" for key, value in sorted(labels.items())))


def pod_from_template(template: JSON, parent: JSON, owner: JSON | None) -> JSON:
    """controller.GetPodFromTemplate: the template's labels, annotations, finalizers and spec, named after the
    parent (`<parent>-<5 random characters>`), owned by it."""
    template_meta: JSON = template.get("metadata") or {}
    meta: JSON = {"generateName": f"{parent['metadata']['name']}-"}
    for field in ("labels", "annotations", "finalizers"):
        if template_meta.get(field):
            meta[field] = copy.deepcopy(template_meta[field])
    if owner is not None:
        meta["ownerReferences"] = [owner]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": copy.deepcopy(template.get("spec") or {})}


class PodControl:
    """controller.RealPodControl: pods created and deleted for a controller, with its events."""

    def __init__(self, client: Client, events: EventRecorder) -> None:
        self.client = client
        self.events = events

    def create(self, namespace: str, pod: JSON, parent: JSON) -> JSON | None:
        """Create the pod; None when its namespace is being deleted (no event then, as upstream)."""
        if not (pod["metadata"].get("labels")):
            raise ValueError("unable to create pods, no labels")
        try:
            created = self.client.create("pods", namespace, pod)
        except StatusError as error:
            if _terminating(error):
                return None
            self.events.warning(reference(parent), "FailedCreate", f"Error creating: {error.message}")
            raise
        self.events.normal(reference(parent), "SuccessfulCreate", f"Created pod: {created['metadata']['name']}")
        return created

    def delete(self, namespace: str, name: str, parent: JSON) -> bool:
        """Delete the pod: False when it was gone already."""
        try:
            self.client.delete("pods", namespace, name)
        except NotFound:
            return False
        except StatusError as error:
            self.events.warning(reference(parent), "FailedDelete", f"Error deleting: {error.message}")
            raise
        self.events.normal(reference(parent), "SuccessfulDelete", f"Deleted pod: {name}")
        return True


def claim_pods(client: Client, parent: JSON, match: LabelSelector | None, candidates: list[Pod],
               can_adopt: Callable[[], bool] | None = None) -> list[Pod]:
    """PodControllerRefManager.ClaimPods: the pods the parent controls once it adopted the orphans its selector
    matches and released its pods the selector no longer matches (neither while it is being deleted)."""
    meta: JSON = parent["metadata"]
    uid = meta.get("uid", "")
    deleting = bool(meta.get("deletionTimestamp"))
    claimed: list[Pod] = []
    for pod in candidates:
        matches = match is not None and match.matches(pod.labels)
        if pod.controller_uid == uid:
            if matches or deleting:
                claimed.append(pod)
            elif not pod.deleting:
                release(client, pod, uid)
            continue
        if pod.controller_uid or deleting or not matches or pod.deleting or pod.namespace != meta.get("namespace"):
            continue
        if can_adopt is not None and not can_adopt():
            continue
        try:
            client.patch("pods", pod.namespace, pod.name, {"metadata": {"ownerReferences": [controller_ref(parent)],
                                                                        "uid": pod.uid}})
        except NotFound:
            continue
        claimed.append(pod)
    return claimed


def release(client: Client, pod: Pod, owner_uid: str) -> None:
    """Drop the owner's reference from a pod (a strategic merge patch naming the pod's uid)."""
    try:
        client.patch("pods", pod.namespace, pod.name,
                     {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": owner_uid}], "uid": pod.uid}})
    except (NotFound, StatusError):
        pass  # gone, or another write came first: the next sync looks again


def _terminating(error: StatusError) -> bool:
    causes = (error.details or {}).get("causes") or []
    return any(cause.get("reason") == NAMESPACE_TERMINATING_CAUSE for cause in causes)
