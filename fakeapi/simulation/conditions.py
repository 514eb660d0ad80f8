"""Pod conditions as the components write them: upstream's UpdatePodCondition, and the status patch a
component sends for one condition."""

from __future__ import annotations

from fakeapi.machinery.patch import create_two_way_merge_patch
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client

COMPARED = ("status", "reason", "message", "lastProbeTime", "lastTransitionTime")


def as_decoded(status: JSON) -> JSON:
    """A pod status as a Go client holds it after decoding: every condition has its lastProbeTime (null when
    unset), so that a patch computed against it carries only real changes."""
    conditions = status.get("conditions")
    if not conditions:
        return status
    return {**status, "conditions": [{"lastProbeTime": None, **condition} for condition in conditions]}


def update_pod_condition(status: JSON, condition: JSON) -> tuple[JSON, bool]:
    """UpdatePodCondition on a copy of `status`: the condition replaces its type's (keeping the old
    lastTransitionTime while the status stays), or is added. Also says whether anything changed."""
    conditions: list[JSON] = list(status.get("conditions") or [])
    for index, old in enumerate(conditions):
        if old.get("type") == condition["type"]:
            if old.get("status") == condition["status"]:
                condition = {**condition, "lastTransitionTime": old.get("lastTransitionTime")}
            conditions[index] = condition
            changed = any(old.get(field) != condition.get(field) for field in COMPARED)
            return {**status, "conditions": conditions}, changed
    return {**status, "conditions": [*conditions, condition]}, True


def patch_condition(client: Client, pod: JSON, condition: JSON, with_uid: bool) -> None:
    """PatchPodStatus with one condition updated (nothing is sent when it is unchanged); `with_uid`: the
    pod's uid goes along as a precondition, as pkg/util/pod's version sends it."""
    old = as_decoded(pod.get("status") or {})
    new, changed = update_pod_condition(old, condition)
    if not changed:
        return
    meta: JSON = pod["metadata"]
    patch = create_two_way_merge_patch({"status": old}, {"status": new}, client.api.registry("pods").kind.patch_tree)
    if with_uid:
        patch = {"metadata": {"uid": meta.get("uid", "")}, **patch}
    client.patch("pods", meta.get("namespace", ""), meta["name"], patch, "status")
