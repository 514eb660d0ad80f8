"""ControllerRevision Table cells: upstream v1.32 `printControllerRevision` (the controller as kind/name)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str


def controller_name(meta: JSON) -> str:
    """The controlling owner as `<kind>.<group>/<name>` in lower case (`daemonset.apps/web`), or `<none>`."""
    for raw in as_list(meta.get("ownerReferences")):
        owner = as_dict(raw)
        if owner.get("controller") is True:
            api_version = as_str(owner.get("apiVersion"))
            group = api_version.split("/")[0] if "/" in api_version else ""
            kind = as_str(owner.get("kind"))
            qualified = f"{kind}.{group}" if group else kind
            return f"{qualified.lower()}/{as_str(owner.get('name'))}" if qualified else as_str(owner.get("name"))
    return "<none>"


def controller_revision_cells(revision: JSON, now: datetime) -> list[Any]:
    meta = as_dict(revision.get("metadata"))
    return [meta.get("name", ""), controller_name(meta), as_int(revision.get("revision")),
            age(meta.get("creationTimestamp"), now)]


CONTROLLER_REVISION_PRINTER = Printer(
    (NAME_COLUMN, Column("Controller", "string", "", 0, "Controller of the object"),
     Column("Revision", "string", "", 0, "revision indicates the revision of the state represented by Data."),
     AGE_COLUMN),
    controller_revision_cells,
)
