"""core/v1 Endpoints: defaults, validation and Table columns (no status, no generation)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.endpoints.validation import validate_endpoints, validate_endpoints_update
from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str

MAX_SHOWN = 3


class EndpointsStrategy(Strategy):
    validation_covers_object_meta = True

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def default(self, obj: JSON) -> None:
        for subset in as_list(obj.get("subsets")):
            for port in as_list(as_dict(subset).get("ports")):
                if isinstance(port, dict) and not port.get("protocol"):
                    port["protocol"] = "TCP"

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_endpoints(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_endpoints_update(new, old)


def format_endpoints(endpoints: JSON) -> str:
    """formatEndpoints: `ip:port` for each address and port, the first three and `+ N more...`; `<none>`."""
    subsets = [as_dict(s) for s in as_list(endpoints.get("subsets"))]
    if not subsets:
        return "<none>"
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [as_str(as_dict(a).get("ip")) for a in as_list(subset.get("addresses"))]
        ports = [as_dict(p) for p in as_list(subset.get("ports"))]
        pairs = [(ip, None) for ip in addresses] if not ports else [
            (ip, as_int(port.get("port"))) for port in ports for ip in addresses]
        for ip, port_number in pairs:
            count += 1
            if len(shown) < MAX_SHOWN:
                host = f"[{ip}]" if ":" in ip else ip
                shown.append(ip if port_number is None else f"{host}:{port_number}")
    text = ",".join(shown)
    return f"{text} + {count - MAX_SHOWN} more..." if count > MAX_SHOWN else text


def endpoints_cells(endpoints: JSON, now: datetime) -> list[Any]:
    meta = as_dict(endpoints.get("metadata"))
    return [meta.get("name", ""), format_endpoints(endpoints), age(meta.get("creationTimestamp"), now)]


ENDPOINTS_PRINTER = Printer(
    (NAME_COLUMN,
     # the v1.32 swagger doc of core/v1 Endpoints.subsets, as upstream's printer reads it
     Column("Endpoints", "string", "", 0,
            "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to "
            "the IPs they share. A single address with multiple ports, some of which are ready and some of which "
            "are not (because they come from different containers) will result in the address being displayed in "
            "different subsets for the different ports. No address will appear in both Addresses and "
            "NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service."),
     AGE_COLUMN),
    endpoints_cells,
)

ENDPOINTS = Kind(
    ResourceInfo("endpoints", "Endpoints", namespaced=True, singular="endpoints", short_names=("ep",),
                 returns_deleted_object=False, definition="io.k8s.api.core.v1.Endpoints"),
    EndpointsStrategy(),
    printer=ENDPOINTS_PRINTER,
)
