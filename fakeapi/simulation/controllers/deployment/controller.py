"""The deployment controller (deployment-controller), after upstream's pkg/controller/deployment: what wakes a
Deployment up, the ReplicaSets it claims, and the choice between a paused or scaling sync and a rollout."""

from __future__ import annotations

import copy

from fakeapi.machinery.clock import parse_rfc3339
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.deployment import util
from fakeapi.simulation.controllers.deployment.sync import DeploymentSync
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.podcontrol import controller_ref, reference, selector
from fakeapi.simulation.controllers.pods import Pod

SERVICE_ACCOUNT = COMPONENT = "deployment-controller"


class DeploymentController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.deployments: Informer[JSON] = context.informers.objects("deployments.apps")
        self.sets: Informer[JSON] = context.informers.objects("replicasets.apps")
        self.pods: Informer[Pod] = context.informers.pods()
        self.deployments.add_handler(self._deployment_changed)
        self.sets.add_handler(self._set_changed)
        self.pods.add_handler(self._pod_changed)

    def start(self) -> None:
        for deployment in self.deployments.items():
            self._queue(deployment)

    def stop(self) -> None:
        pass  # (what waits on the clock is dropped with the to-do list)

    # ---- what wakes a Deployment up

    def _queue(self, deployment: JSON) -> None:
        key = _key(deployment)
        self.work.soon((COMPONENT, key), lambda: self.sync(*key))

    def _deployment_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is not None:
            self._queue(new)

    def _owner(self, rs: JSON) -> JSON | None:
        ref = next((ref for ref in rs["metadata"].get("ownerReferences") or [] if ref.get("controller")), None)
        if ref is None or ref.get("kind") != "Deployment":
            return None
        deployment = self.deployments.get(rs["metadata"].get("namespace", ""), str(ref.get("name", "")))
        if deployment is None or deployment["metadata"].get("uid") != ref.get("uid"):
            return None
        return deployment

    def _matching(self, rs: JSON) -> list[JSON]:
        """getDeploymentsForReplicaSet: the Deployments whose selector matches an orphan set's labels."""
        labels = rs["metadata"].get("labels") or {}
        found = []
        for deployment in self.deployments.items(rs["metadata"].get("namespace", "")):
            match = selector((deployment.get("spec") or {}).get("selector"))
            if match is not None and not match.empty() and match.matches(labels):
                found.append(deployment)
        return found

    def _set_changed(self, old: JSON | None, new: JSON | None) -> None:
        rs = new if new is not None else old
        assert rs is not None
        owner = self._owner(rs)
        if owner is not None:
            self._queue(owner)
        elif new is not None and not any(ref.get("controller") for ref in new["metadata"].get("ownerReferences") or []):
            for deployment in self._matching(new):
                self._queue(deployment)
        if old is not None and new is not None:
            previous = self._owner(old)
            if previous is not None and previous is not owner:
                self._queue(previous)

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        """A deleted pod of a Recreate Deployment may be the last old one it waits for."""
        if new is not None or old is None:
            return
        ref = next((ref for ref in old.owners if ref.get("controller")), None)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        rs = self.sets.get(old.namespace, str(ref.get("name", "")))
        deployment = self._owner(rs) if rs is not None else None
        if deployment is not None and not util.rolling(deployment):
            self._queue(deployment)

    def requeue_stuck(self, deployment: JSON, status: JSON) -> None:
        """requeueStuckDeployment: a rollout without progress is looked at again when its deadline passes."""
        current = util.condition(deployment.get("status") or {}, util.PROGRESSING)
        if not util.has_progress_deadline(deployment) or current is None:
            return
        if util.complete(deployment, status) or current.get("reason") == util.TIMED_OUT:
            return
        updated = current.get("lastUpdateTime")
        if not updated:
            return
        now = self.context.now()
        after = (parse_rfc3339(updated) - now).total_seconds() + util.progress_deadline(deployment)
        key = _key(deployment)
        self.work.later(max(after, 0) + 1, lambda: self.sync(*key), key=(COMPONENT, "progress", key))

    # ---- the sync

    def sync(self, namespace: str, name: str) -> None:
        stored = self.deployments.get(namespace, name)
        if stored is None:
            return
        deployment = copy.deepcopy(stored)
        spec: JSON = deployment.get("spec") or {}
        if spec.get("selector") == {}:
            self.events.warning(reference(deployment), "SelectingAll",
                                "This deployment is selecting all pods. A non-empty selector is required.")
            status: JSON = deployment.setdefault("status", {})
            generation = int(deployment["metadata"].get("generation") or 0)
            if int(status.get("observedGeneration") or 0) < generation:
                status["observedGeneration"] = generation
                DeploymentSync(self, deployment, []).update_status()
            return
        sets = self._claim_sets(deployment)
        sync = DeploymentSync(self, deployment, sets)
        if deployment["metadata"].get("deletionTimestamp"):
            new, old = sync.new_and_old(False)
            sync.sync_status([*old, new], new)
            return
        self._check_paused_conditions(sync)
        if spec.get("paused"):
            sync.sync()
            return
        if sync.is_scaling_event():
            sync.sync()
            return
        if util.rolling(deployment):
            sync.rollout_rolling()
        else:
            pods = {rs["metadata"]["uid"]: self.pods.controlled_by(rs["metadata"]["uid"]) for rs in sets}
            sync.rollout_recreate(pods)

    def _check_paused_conditions(self, sync: DeploymentSync) -> None:
        """checkPausedConditions: Progressing Unknown with DeploymentPaused or DeploymentResumed, so that a
        pause does not count against the progress deadline."""
        deployment = sync.d
        if not util.has_progress_deadline(deployment):
            return
        status: JSON = deployment.setdefault("status", {})
        current = util.condition(status, util.PROGRESSING)
        if current is not None and current.get("reason") == util.TIMED_OUT:
            return
        paused_condition = current is not None and current.get("reason") == util.PAUSED
        paused = bool((deployment.get("spec") or {}).get("paused"))
        now = self.context.now()
        if paused and not paused_condition:
            util.set_condition(status, util.new_condition(util.PROGRESSING, "Unknown", util.PAUSED,
                                                          "Deployment is paused", now))
        elif not paused and paused_condition:
            util.set_condition(status, util.new_condition(util.PROGRESSING, "Unknown", util.RESUMED,
                                                          "Deployment is resumed", now))
        else:
            return
        sync.update_status()

    def _claim_sets(self, deployment: JSON) -> list[JSON]:
        """getReplicaSetsForDeployment: the sets it controls, after adopting the orphans its selector matches
        and releasing its sets the selector no longer matches."""
        meta: JSON = deployment["metadata"]
        uid = meta["uid"]
        match = selector((deployment.get("spec") or {}).get("selector"))
        deleting = bool(meta.get("deletionTimestamp"))
        claimed: list[JSON] = []
        for rs in self.sets.controlled_by(uid):
            labels = rs["metadata"].get("labels") or {}
            if (match is not None and match.matches(labels)) or deleting:
                claimed.append(rs)
            elif not rs["metadata"].get("deletionTimestamp"):
                self._patch_set(rs, {"metadata": {"ownerReferences": [{"$patch": "delete", "uid": uid}],
                                                  "uid": rs["metadata"]["uid"]}})
        if deleting or match is None:
            return claimed
        for rs in self.sets.orphans(meta.get("namespace", "")):
            if rs["metadata"].get("deletionTimestamp") or not match.matches(rs["metadata"].get("labels") or {}):
                continue
            if self._patch_set(rs, {"metadata": {"ownerReferences": [controller_ref(deployment)],
                                                 "uid": rs["metadata"]["uid"]}}):
                adopted = self.sets.get(rs["metadata"].get("namespace", ""), rs["metadata"]["name"])
                if adopted is not None:
                    claimed.append(adopted)
        return claimed

    def _patch_set(self, rs: JSON, patch: JSON) -> bool:
        try:
            self.client.patch("replicasets", rs["metadata"].get("namespace", ""), rs["metadata"]["name"], patch,
                              group="apps")
        except NotFound:
            return False
        return True


def _key(obj: JSON) -> Key:
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]
