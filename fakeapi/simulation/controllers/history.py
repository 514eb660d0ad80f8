"""ControllerRevisions, the history of DaemonSets and StatefulSets (upstream's controller/history): each
revision holds a patch that puts back the owner's pod template, a revision number, and the hash its name
ends with."""

from __future__ import annotations

import copy

from fakeapi.machinery.errors import AlreadyExists, NotFound
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client
from fakeapi.simulation.controllers.deployment.util import template_hash
from fakeapi.simulation.controllers.informers import Informer
from fakeapi.simulation.controllers.podcontrol import controller_ref

REVISIONS = "controllerrevisions.apps"


def template_patch(owner: JSON) -> JSON:
    """getPatch: `{"spec": {"template": {...the template..., "$patch": "replace"}}}`."""
    template = copy.deepcopy((owner.get("spec") or {}).get("template") or {})
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def revision_number(revision: JSON) -> int:
    return int(revision.get("revision") or 0)


def owned(revisions: Informer[JSON], owner: JSON) -> list[JSON]:
    """The owner's revisions, oldest revision first."""
    return sorted(revisions.controlled_by(owner["metadata"]["uid"]),
                  key=lambda revision: (revision_number(revision), revision["metadata"]["name"]))


def data_hash(data: JSON, collision_count: int | None) -> str:
    """HashControllerRevision: the revision's data hashed (with the collision count), as a name suffix."""
    return template_hash(data, collision_count)


def current(client: Client, revisions: Informer[JSON], owner: JSON,
            hash_label: str) -> tuple[JSON, list[JSON], int | None]:
    """The revision matching the owner's template (made, or renumbered to be the newest, as needed), the older
    ones, and the collision count to record when a name was taken by another template."""
    patch = template_patch(owner)
    history = owned(revisions, owner)
    newest = max((revision_number(revision) for revision in history), default=0)
    matching = [revision for revision in history if revision.get("data") == patch]
    collisions = (owner.get("status") or {}).get("collisionCount")
    namespace = owner["metadata"].get("namespace", "")
    if matching:
        found = matching[-1]
        if revision_number(found) < newest:
            found = copy.deepcopy(found)
            found["revision"] = newest + 1
            found = client.update("controllerrevisions", namespace, found["metadata"]["name"], found, group="apps")
        return found, [revision for revision in history if revision["metadata"]["uid"] != found["metadata"]["uid"]], \
            collisions
    while True:
        suffix = data_hash(patch, collisions)
        labels = dict((((owner.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {})
        labels[hash_label] = suffix
        revision: JSON = {
            "apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": f"{owner['metadata']['name'][:223]}-{suffix}", "labels": labels,
                         "ownerReferences": [controller_ref(owner)]},
            "data": patch, "revision": newest + 1}
        annotations = owner["metadata"].get("annotations")
        if annotations and hash_label == "controller-revision-hash":
            revision["metadata"]["annotations"] = dict(annotations)
        try:
            created = client.create("controllerrevisions", namespace, revision, group="apps")
        except AlreadyExists:
            taken = revisions.get(namespace, revision["metadata"]["name"])
            if taken is not None and taken.get("data") == patch:
                return taken, history, collisions
            collisions = (collisions or 0) + 1
            continue
        return created, history, collisions


def delete(client: Client, revision: JSON) -> None:
    try:
        client.delete("controllerrevisions", revision["metadata"].get("namespace", ""), revision["metadata"]["name"],
                      group="apps")
    except NotFound:
        pass
