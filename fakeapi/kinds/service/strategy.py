"""Service strategies (upstream pkg/registry/core/service/strategy.go): the main resource and services/status.
The addresses and ports are given out before these run, by the store's write hooks
(fakeapi.registry.serviceallocation), as upstream's Service REST does."""

from __future__ import annotations

from fakeapi.kinds.service.defaults import default_service, externally_accessible
from fakeapi.kinds.service.validation import (
    cluster_ips,
    needs_health_check,
    validate_service,
    validate_service_status_update,
    validate_service_update,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.kinds.workload.strategy import keep
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int, as_list

EMPTY_STATUS: JSON = {"loadBalancer": {}}


def drop_type_dependent_fields(spec: JSON, old_spec: JSON, new: JSON) -> None:
    """dropTypeDependentFields: what a Service switching to a type that has no use for a field held (and the
    client left as it was) goes; its addresses and ports are free again once stored."""
    old_type, new_type = old_spec.get("type"), spec.get("type")
    if old_type != "ExternalName" and new_type == "ExternalName":
        if cluster_ips(spec) == cluster_ips(old_spec):
            spec.pop("clusterIP", None)
            spec.pop("clusterIPs", None)
        if spec.get("ipFamilies") == old_spec.get("ipFamilies"):
            spec.pop("ipFamilies", None)
        if spec.get("ipFamilyPolicy") == old_spec.get("ipFamilyPolicy"):
            spec.pop("ipFamilyPolicy", None)
    node_port_types = ("NodePort", "LoadBalancer")
    if old_type in node_port_types and new_type not in node_port_types:
        ports = [as_dict(p) for p in as_list(spec.get("ports"))]
        old_ports = [as_int(as_dict(p).get("nodePort")) for p in as_list(old_spec.get("ports"))]
        if [as_int(p.get("nodePort")) for p in ports] == old_ports:
            for port in ports:
                port.pop("nodePort", None)
    if needs_health_check(old_spec) and not needs_health_check(spec) \
            and as_int(spec.get("healthCheckNodePort")) == as_int(old_spec.get("healthCheckNodePort")):
        spec.pop("healthCheckNodePort", None)
    if old_type == "LoadBalancer" and new_type != "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is not None \
                and spec.get("allocateLoadBalancerNodePorts") == old_spec.get("allocateLoadBalancerNodePorts"):
            spec.pop("allocateLoadBalancerNodePorts", None)
        if spec.get("loadBalancerClass") == old_spec.get("loadBalancerClass"):
            spec.pop("loadBalancerClass", None)
        new["status"] = dict(EMPTY_STATUS)
    if externally_accessible(old_spec) and not externally_accessible(spec) \
            and spec.get("externalTrafficPolicy") == old_spec.get("externalTrafficPolicy"):
        spec.pop("externalTrafficPolicy", None)


class ServiceStrategy(Strategy):
    validation_covers_object_meta = True  # validate_service checks ObjectMeta with DNS-1035 names

    def default(self, obj: JSON) -> None:
        default_service(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["status"] = {"loadBalancer": {}}

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_service(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "status")
        spec = new.get("spec")
        if isinstance(spec, dict):
            drop_type_dependent_fields(spec, as_dict(old.get("spec")), new)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_service_update(new, old)


class ServiceStatusStrategy(ServiceStrategy):
    """services/status: the load balancer status changes, the spec is the stored one."""

    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "spec")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_service_status_update(new, old)
