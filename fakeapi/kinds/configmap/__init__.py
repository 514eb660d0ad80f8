"""core/v1 ConfigMap: defaults, strategy, validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.configmap.strategy import ConfigMapStrategy
from fakeapi.kinds.configmap.table import CONFIG_MAP_PRINTER
from fakeapi.kinds.kind import Kind, ResourceInfo

CONFIG_MAP = Kind(
    ResourceInfo("configmaps", "ConfigMap", namespaced=True, singular="configmap", short_names=("cm",),
                 returns_deleted_object=False, definition="io.k8s.api.core.v1.ConfigMap"),
    ConfigMapStrategy(),
    printer=CONFIG_MAP_PRINTER,
)
