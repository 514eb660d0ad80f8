"""discovery.k8s.io/v1 EndpointSlice: defaults (port name and protocol), the generation its strategy keeps,
validation and Table columns."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.endpointslice.validation import validate_endpoint_slice, validate_endpoint_slice_update
from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.strategy import Strategy
from fakeapi.kinds.workload.strategy import bump_generation
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list, as_str, semantic_equal

MAX_SHOWN = 3


class EndpointSliceStrategy(Strategy):
    validation_covers_object_meta = True

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def default(self, obj: JSON) -> None:
        for port in as_list(obj.get("ports")):
            if isinstance(port, dict):
                if port.get("name") is None:
                    port["name"] = ""
                if port.get("protocol") is None:
                    port["protocol"] = "TCP"

    def prepare_for_create(self, obj: JSON) -> None:
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        """Anything but metadata changed, or the labels: a new generation."""
        body = {key: value for key, value in new.items() if key != "metadata"}
        old_body = {key: value for key, value in old.items() if key != "metadata"}
        labels_changed = not semantic_equal(as_dict(new["metadata"]).get("labels"),
                                            as_dict(old.get("metadata")).get("labels"))
        if not semantic_equal(body, old_body) or labels_changed:
            bump_generation(new, old)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_endpoint_slice(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_endpoint_slice_update(new, old)


def _shown(values: list[str]) -> str:
    """listWithMoreString: the first three, `+ N more...`, or `<unset>`."""
    text = ",".join(values[:MAX_SHOWN])
    if len(values) > MAX_SHOWN:
        return f"{text} + {len(values) - MAX_SHOWN} more..."
    return text or "<unset>"


def endpoint_slice_cells(slice_: JSON, now: datetime) -> list[Any]:
    meta = as_dict(slice_.get("metadata"))
    ports = [str(port["port"]) if isinstance(port.get("port"), int) else
             as_str(port.get("name")) if port.get("name") is not None else "*"
             for port in map(as_dict, as_list(slice_.get("ports")))]
    addresses = [as_str(address) for endpoint in as_list(slice_.get("endpoints"))
                 for address in as_list(as_dict(endpoint).get("addresses"))]
    return [meta.get("name", ""), as_str(slice_.get("addressType")), _shown(ports), _shown(addresses),
            age(meta.get("creationTimestamp"), now)]


# descriptions: the v1.32 swagger docs of discovery/v1beta1 that upstream's printer reads
ENDPOINT_SLICE_PRINTER = Printer(
    (NAME_COLUMN,
     Column("AddressType", "string", "", 0,
            "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice "
            "must be the same type. This field is immutable after creation. The following address types are "
            "currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: "
            "Represents a Fully Qualified Domain Name."),
     Column("Ports", "string", "", 0,
            "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have "
            "a unique name. When ports is empty, it indicates that there are no defined ports. When a port is "
            'defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 '
            "ports."),
     Column("Endpoints", "string", "", 0,
            "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 "
            "endpoints."),
     AGE_COLUMN),
    endpoint_slice_cells,
)

ENDPOINT_SLICE = Kind(
    ResourceInfo("endpointslices", "EndpointSlice", namespaced=True, singular="endpointslice",
                 group="discovery.k8s.io", returns_deleted_object=False,
                 definition="io.k8s.api.discovery.v1.EndpointSlice"),
    EndpointSliceStrategy(),
    printer=ENDPOINT_SLICE_PRINTER,
)
