"""Node strategies (upstream pkg/registry/core/node/strategy.go): the main resource and nodes/status.

Nodes take every field on create, status included (a kubelet registers with its status). Afterwards a
write to the node keeps the stored status and a write to nodes/status keeps the stored spec. The
deprecated dynamic kubelet configuration (spec.configSource, status.config) is never stored: upstream
drops it unless the stored node already uses it, which none can. Nodes have no metadata.generation.
"""

from __future__ import annotations

from fakeapi.kinds.node.defaults import default_node
from fakeapi.kinds.node.validation import validate_node, validate_node_update
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

EXTERNAL_ID_WARNING = "spec.externalID: this field is deprecated, and is unused by Kubernetes"


class NodeStrategy(Strategy):
    validation_covers_object_meta = True  # validate_node checks ObjectMeta with DNS names

    def default(self, obj: JSON) -> None:
        default_node(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        _drop(obj, "spec", "configSource")
        _drop(obj, "status", "config")

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_node(obj)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return _deprecation_warnings(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
        _drop(new, "spec", "configSource")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_node(new) + validate_node_update(new, old)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return _deprecation_warnings(new)


class NodeStatusStrategy(NodeStrategy):
    """nodes/status: the status (and metadata) change, the spec is the stored one."""

    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        if "spec" in old:
            new["spec"] = old["spec"]
        else:
            new.pop("spec", None)
        _drop(new, "status", "config")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_node_update(new, old)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return []


def _drop(obj: JSON, part: str, field: str) -> None:
    """Remove `part.field` without editing a dict the stored object may share (strategies replace parts)."""
    section = obj.get(part)
    if isinstance(section, dict) and field in section:
        obj[part] = {key: value for key, value in section.items() if key != field}


def _deprecation_warnings(node: JSON) -> list[str]:
    return [EXTERNAL_ID_WARNING] if (node.get("spec") or {}).get("externalID") else []
