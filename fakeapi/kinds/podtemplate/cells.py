"""Table cells the workload printers share (upstream's layoutContainerCells)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.labels import selector_text
from fakeapi.machinery.tables.columns import Column
from fakeapi.machinery.validation.labelselector import selector_is_valid
from fakeapi.machinery.validation.values import as_dict, as_list, as_str

CONTAINERS_COLUMN = Column("Containers", "string", "", 1, "Names of each container in the template.")
IMAGES_COLUMN = Column("Images", "string", "", 1, "Images referenced by each container in the template.")


def container_cells(template: Any) -> list[str]:
    """The template's container names and images, each comma-separated."""
    containers = [as_dict(c) for c in as_list(as_dict(as_dict(template).get("spec")).get("containers"))]
    return [",".join(as_str(c.get("name")) for c in containers), ",".join(as_str(c.get("image")) for c in containers)]


def format_labels(labels: Any) -> str:
    """labels.FormatLabels: `k=v` pairs sorted by key, `<none>` when there are none."""
    pairs = as_dict(labels)
    return ",".join(f"{key}={pairs[key]}" for key in sorted(pairs)) or "<none>"


def format_label_selector(selector: Any) -> str:
    """metav1.FormatLabelSelector: the selector's text, `<none>` when it selects by nothing, `<error>` when it is
    not a valid selector."""
    if not selector_is_valid(selector):
        return "<error>"
    return selector_text(as_dict(selector)) or "<none>"
