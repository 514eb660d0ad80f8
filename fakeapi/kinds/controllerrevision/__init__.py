"""apps/v1 ControllerRevision: the immutable snapshots of StatefulSet and DaemonSet templates."""

from __future__ import annotations

from fakeapi.kinds.controllerrevision.strategy import ControllerRevisionStrategy
from fakeapi.kinds.controllerrevision.table import CONTROLLER_REVISION_PRINTER
from fakeapi.kinds.kind import Kind, ResourceInfo

CONTROLLER_REVISION = Kind(
    ResourceInfo("controllerrevisions", "ControllerRevision", namespaced=True, singular="controllerrevision",
                 group="apps", returns_deleted_object=False, definition="io.k8s.api.apps.v1.ControllerRevision"),
    ControllerRevisionStrategy(),
    printer=CONTROLLER_REVISION_PRINTER,
)
