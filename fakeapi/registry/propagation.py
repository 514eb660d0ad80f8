"""What a delete asks of the garbage collector: the `orphan` and `foregroundDeletion` finalizers an object
takes when it is deleted (upstream's store: deletionFinalizersForGarbageCollection, shouldOrphanDependents,
shouldDeleteDependents).

The delete's own choice wins (`propagationPolicy`, or the deprecated `orphanDependents`), then a finalizer the
object already carries, then the kind's default policy (ORPHAN_DEPENDENTS for ReplicationControllers and
batch/v1 Jobs, DELETE_DEPENDENTS for the rest). Kinds whose policy is UNSUPPORTED (events) never take one.
"""

from __future__ import annotations

from fakeapi.kinds.strategy import ORPHAN_DEPENDENTS, UNSUPPORTED
from fakeapi.registry.options import DeleteOptions

ORPHAN_FINALIZER = "orphan"
FOREGROUND_FINALIZER = "foregroundDeletion"
ORPHAN, BACKGROUND, FOREGROUND = "Orphan", "Background", "Foreground"


def deletion_finalizers(policy: str, finalizers: list[str], options: DeleteOptions) -> list[str]:
    """The object's finalizers once the delete is applied: `finalizers` itself when nothing changes."""
    if policy == UNSUPPORTED:
        return finalizers
    wanted = [name for name in finalizers if name not in (ORPHAN_FINALIZER, FOREGROUND_FINALIZER)]
    if _orphans(policy, finalizers, options):
        wanted.append(ORPHAN_FINALIZER)
    if _deletes_in_foreground(finalizers, options):
        wanted.append(FOREGROUND_FINALIZER)
    return finalizers if set(wanted) == set(finalizers) else wanted


def _orphans(policy: str, finalizers: list[str], options: DeleteOptions) -> bool:
    if options.orphan_dependents is not None:
        return options.orphan_dependents
    if options.propagation_policy is not None:
        return options.propagation_policy == ORPHAN
    for name in finalizers:
        if name in (ORPHAN_FINALIZER, FOREGROUND_FINALIZER):
            return name == ORPHAN_FINALIZER
    return policy == ORPHAN_DEPENDENTS


def _deletes_in_foreground(finalizers: list[str], options: DeleteOptions) -> bool:
    if options.orphan_dependents is not None:
        return False
    if options.propagation_policy is not None:
        return options.propagation_policy == FOREGROUND
    return FOREGROUND_FINALIZER in finalizers
