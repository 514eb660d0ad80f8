"""An example controller, tested against fakeapi: it starts pods, as a tiny kubelet would.

It watches the pods of one namespace and writes `status.phase: Running` and a Ready condition through
the pods/status subresource of each pod that is not running yet, with the official `kubernetes`
client. It is written the way controllers have to be, and its tests (tests/testing/
test_controller_example.py) inject the faults that prove it:

* an update that hits 409 Conflict is retried on a fresh read of the pod;
* a watch stream that ends is resumed from the last resourceVersion seen;
* a watch answered with 410 Expired makes it list again (a relist);
* throttling and server errors (429, 500, 503, 504) are retried after a short pause.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

FIELD_MANAGER = "pod-starter"
RETRIED = (429, 500, 503, 504)


class PodStarter:
    def __init__(self, api_client: Any, namespace: str = "default", conflict_retries: int = 10,
                 pause: float = 0.05) -> None:
        self.v1 = client.CoreV1Api(api_client)
        self.namespace = namespace
        self.conflict_retries = conflict_retries
        self.pause = pause
        self.stopping = threading.Event()
        self.conflicts = 0  # 409s met (each followed by a fresh read and another try)
        self.lists = 0  # full lists: the first one, then one after each 410

    # ---- one pod

    def reconcile(self, name: str) -> None:
        """Bring one pod to Running (nothing to do if it is running, being deleted, or gone)."""
        for _attempt in range(self.conflict_retries):
            try:
                pod = self.v1.read_namespaced_pod(name, self.namespace)
            except ApiException as error:
                if error.status == 404:
                    return
                raise
            if pod.status.phase == "Running" or pod.metadata.deletion_timestamp:
                return
            pod.status.phase = "Running"
            pod.status.conditions = [client.V1PodCondition(type="Ready", status="True")]
            try:
                self.v1.replace_namespaced_pod_status(name, self.namespace, pod, field_manager=FIELD_MANAGER)
                return
            except ApiException as error:
                if error.status != 409:
                    raise
                self.conflicts += 1  # someone wrote the pod since we read it: read it again
        raise RuntimeError(f"pod {name}: still conflicting after {self.conflict_retries} attempts")

    # ---- the loop: list, then watch from where the list (or the last event) left off

    def run(self) -> None:
        resource_version: str | None = None
        while not self.stopping.is_set():
            try:
                if resource_version is None:
                    resource_version = self._list_and_reconcile()
                resource_version = self._watch(resource_version)
            except ApiException as error:
                if error.status == 410:
                    resource_version = None  # our version is too old: list again
                elif error.status in RETRIED:
                    time.sleep(self.pause)
                else:
                    raise

    def _list_and_reconcile(self) -> str:
        pods = self.v1.list_namespaced_pod(self.namespace)
        self.lists += 1
        for pod in pods.items:
            self.reconcile(pod.metadata.name)
        version: str = pods.metadata.resource_version
        return version

    def _watch(self, resource_version: str) -> str:
        """Follow changes until the stream ends; returns the last resourceVersion seen."""
        events = watch.Watch().stream(self.v1.list_namespaced_pod, self.namespace,
                                      resource_version=resource_version, allow_watch_bookmarks=True,
                                      timeout_seconds=300)
        for event in events:
            pod = event["object"]
            resource_version = pod.metadata.resource_version
            if self.stopping.is_set():
                break
            if event["type"] in ("ADDED", "MODIFIED"):
                self.reconcile(pod.metadata.name)
        return resource_version

    def stop(self) -> None:
        """Stop after the current event (or when the watch stream ends)."""
        self.stopping.set()
