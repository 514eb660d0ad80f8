"""The simulated kubelet's status manager: a pod's status is generated from its runtime and written once the
step that changed it is done, so that what one step changes goes out in one PATCH, as upstream's status
manager writes the latest status it holds; nothing is sent when the status is as the pod has it.

The PATCH is upstream's: a two-way strategic merge patch of pods/status with the pod's uid as a
precondition (pkg/util/pod's PatchPodStatus)."""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.machinery.clock import rfc3339
from fakeapi.machinery.patch import create_two_way_merge_patch
from fakeapi.machinery.types import JSON
from fakeapi.simulation import conditions, podstatus
from fakeapi.simulation.client import Client
from fakeapi.simulation.runtime import PodRuntime
from fakeapi.simulation.work import Work


class StatusManager:
    def __init__(self, client: Client, work: Work, stopped: Callable[[PodRuntime], bool],
                 settled: Callable[[PodRuntime], None]) -> None:
        self.client = client
        self.work = work
        self.stopped = stopped  # whether the pod's kubelet is stopped (it writes nothing then)
        self.settled = settled  # told once the pod's status is as its runtime says
        self._tree = client.api.registry("pods").kind.patch_tree

    def set(self, runtime: PodRuntime) -> None:
        """The runtime changed: its status goes out once the current step is done."""
        self.work.soon(("status", runtime.uid), lambda: self.sync(runtime))

    def sync(self, runtime: PodRuntime) -> None:
        """PATCH pods/status with the status generated now, if it differs from the pod's."""
        if self.stopped(runtime):
            return
        pod = self.client.api.registry("pods").find(*runtime.key)
        if pod is None or pod["metadata"].get("uid") != runtime.uid:
            return
        now = rfc3339(self.client.api.clock.now())
        self.patch(pod, pod.get("status") or {}, podstatus.generate(pod, runtime, now))
        self.settled(runtime)

    def patch(self, pod: JSON, old: JSON, new: JSON) -> None:
        patch = create_two_way_merge_patch({"status": conditions.as_decoded(old)}, {"status": new}, self._tree)
        if patch:
            meta: JSON = pod["metadata"]
            self.client.as_node((pod.get("spec") or {}).get("nodeName", "")).patch(
                "pods", meta.get("namespace", ""), meta["name"], {"metadata": {"uid": meta.get("uid", "")}, **patch},
                "status")
