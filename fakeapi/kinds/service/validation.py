"""Service validation (upstream core ValidateService, ValidateServiceUpdate, ValidateServiceStatusUpdate and
ValidateServiceClusterIPsRelatedFields), with its messages and field paths (`spec.LoadBalancerSourceRanges`
and a `spec`-less `allocateLoadBalancerNodePorts` included, as upstream writes them)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.service.defaults import externally_accessible
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import (
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_list, as_str, go_string_slice

SESSION_AFFINITIES = ["ClientIP", "None"]
SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
TRAFFIC_POLICIES = ["Cluster", "Local"]
IP_FAMILIES = ["IPv4", "IPv6"]
IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"]
PROTOCOLS = ["SCTP", "TCP", "UDP"]
LB_IP_MODES = ["Proxy", "VIP"]
MAX_CLIENT_IP_TIMEOUT = 86400
TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints"
TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"
SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"
ONLY_LOAD_BALANCER = "may only be used when `type` is 'LoadBalancer'"


def cluster_ips(spec: JSON) -> list[str]:
    return [as_str(ip) for ip in as_list(spec.get("clusterIPs"))]


def is_headless(spec: JSON) -> bool:
    return cluster_ips(spec) == ["None"]


def needs_health_check(spec: JSON) -> bool:
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _ip_list(values: list[str]) -> GoText:
    return go_string_slice(values) if values else GoText("[]string(nil)")


def validate_non_special_ip(ip_text: str, path: str) -> list[FieldError]:
    """ValidateNonSpecialIP: no unspecified, loopback or link-local address (what endpoints may not be)."""
    ip = names.parse_ip_sloppy(ip_text)
    if ip is None:
        return [fe.invalid(path, ip_text, "must be a valid IP address")]
    errs: list[FieldError] = []
    if ip.is_unspecified:
        errs.append(fe.invalid(path, ip_text, "may not be unspecified (0.0.0.0)"))
    if ip.is_loopback:
        errs.append(fe.invalid(path, ip_text, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if ip.is_link_local and not ip.is_multicast:
        errs.append(fe.invalid(path, ip_text, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    if _link_local_multicast(ip_text):
        errs.append(fe.invalid(path, ip_text,
                               "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return errs


def _link_local_multicast(ip_text: str) -> bool:
    ip = names.parse_ip_sloppy(ip_text)
    if ip is None:
        return False
    packed = ip.packed
    return (ip.version == 4 and packed[:3] == b"\xe0\x00\x00") or (
        ip.version == 6 and packed[0] == 0xFF and packed[1] & 0x0F == 0x02)


def validate_port_num_or_name(target: Any, path: str) -> list[FieldError]:
    if isinstance(target, str):
        return [fe.invalid(path, target, message) for message in names.is_valid_port_name(target)]
    number = as_int(target)
    return [fe.invalid(path, number, message) for message in names.is_valid_port_num(number)]


def validate_service(service: JSON) -> list[FieldError]:
    meta, spec = as_dict(service.get("metadata")), as_dict(service.get("spec"))
    errs = validate_object_meta(meta, True, "metadata", names.name_is_dns1035_label)
    annotations = as_dict(meta.get("annotations"))
    if TOPOLOGY_MODE in annotations and TOPOLOGY_HINTS in annotations \
            and annotations[TOPOLOGY_MODE] != annotations[TOPOLOGY_HINTS]:
        errs.append(fe.invalid(f"metadata.annotations[{TOPOLOGY_MODE}]", as_str(annotations[TOPOLOGY_MODE]),
                               f"must match annotations[{TOPOLOGY_HINTS}] when both are specified"))
    kind, ports, headless = spec.get("type"), as_list(spec.get("ports")), is_headless(spec)
    if not ports and not headless and kind != "ExternalName":
        errs.append(fe.required("spec.ports"))
    if kind in ("LoadBalancer", "NodePort") and headless:
        errs.append(fe.invalid("spec.clusterIPs[0]", "None", f"may not be set to 'None' for {kind} services"))
    elif kind == "ExternalName":
        errs += _validate_external_name(spec)
    names_seen: set[str] = set()
    for index, raw in enumerate(ports):
        errs += _validate_port(as_dict(raw), len(ports) > 1, names_seen, f"spec.ports[{index}]")
    if spec.get("selector") is not None:
        errs += validate_labels(spec.get("selector"), "spec.selector")
    errs += _validate_session_affinity(spec)
    errs += validate_cluster_ip_fields(spec)
    for index, ip in enumerate(as_list(spec.get("externalIPs"))):
        at = f"spec.externalIPs[{index}]"
        messages = names.is_valid_ip(as_str(ip))
        errs += [fe.invalid(at, as_str(ip), message) for message in messages] or validate_non_special_ip(
            as_str(ip), at)
    if not kind:
        errs.append(fe.required("spec.type"))
    elif kind not in SERVICE_TYPES:
        errs.append(fe.not_supported("spec.type", as_str(kind), SERVICE_TYPES))
    if kind == "ClusterIP":
        for index, raw in enumerate(ports):
            if as_int(as_dict(raw).get("nodePort")):
                errs.append(fe.forbidden(f"spec.ports[{index}].nodePort", "may not be used when `type` is 'ClusterIP'"))
    errs += _validate_port_uniqueness(ports)
    errs += _validate_source_ranges(spec, annotations)
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        errs.append(fe.forbidden("spec.allocateLoadBalancerNodePorts", ONLY_LOAD_BALANCER))
    if kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        errs.append(fe.required("allocateLoadBalancerNodePorts"))
    errs += _validate_load_balancer_class(spec, None)
    errs += _validate_external_traffic_policy(spec)
    errs += _validate_internal_traffic_policy(spec)
    distribution = spec.get("trafficDistribution")
    if distribution is not None and distribution != "PreferClose":
        errs.append(fe.not_supported("spec.trafficDistribution", as_str(distribution), ["PreferClose"]))
    return errs


def _validate_external_name(spec: JSON) -> list[FieldError]:
    errs: list[FieldError] = []
    if cluster_ips(spec):
        errs.append(fe.forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
    if as_list(spec.get("ipFamilies")):
        errs.append(fe.forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
    if spec.get("ipFamilyPolicy") is not None:
        errs.append(fe.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
    cname = as_str(spec.get("externalName")).removesuffix(".")
    if cname:
        errs += [fe.invalid("spec.externalName", cname, message) for message in names.is_dns1123_subdomain(cname)]
    else:
        errs.append(fe.required("spec.externalName"))
    return errs


def _validate_port(port: JSON, require_name: bool, seen: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = as_str(port.get("name"))
    if require_name and not name:
        errs.append(fe.required(f"{path}.name"))
    elif name:
        errs += [fe.invalid(f"{path}.name", name, message) for message in names.is_dns1123_label(name)]
        if name in seen:
            errs.append(fe.duplicate(f"{path}.name", name))
        seen.add(name)
    number = as_int(port.get("port"))
    errs += [fe.invalid(f"{path}.port", number, message) for message in names.is_valid_port_num(number)]
    protocol = as_str(port.get("protocol"))
    if not protocol:
        errs.append(fe.required(f"{path}.protocol"))
    elif protocol not in PROTOCOLS:
        errs.append(fe.not_supported(f"{path}.protocol", protocol, PROTOCOLS))
    errs += validate_port_num_or_name(port.get("targetPort"), f"{path}.targetPort")
    if port.get("appProtocol") is not None:
        app_protocol = as_str(port.get("appProtocol"))
        errs += [fe.invalid(f"{path}.appProtocol", app_protocol, message)
                 for message in names.is_qualified_name(app_protocol)]
    return errs


def _validate_session_affinity(spec: JSON) -> list[FieldError]:
    affinity = as_str(spec.get("sessionAffinity"))
    errs: list[FieldError] = []
    if not affinity:
        errs.append(fe.required("spec.sessionAffinity"))
    elif affinity not in SESSION_AFFINITIES:
        errs.append(fe.not_supported("spec.sessionAffinity", affinity, SESSION_AFFINITIES))
    config = spec.get("sessionAffinityConfig")
    when = "when session affinity type is ClientIP"
    if affinity == "ClientIP":
        client_ip = as_dict(config).get("clientIP")
        if config is None:
            errs.append(fe.required("spec.sessionAffinityConfig", when))
        elif client_ip is None:
            errs.append(fe.required("spec.sessionAffinityConfig.clientIP", when))
        elif as_dict(client_ip).get("timeoutSeconds") is None:
            errs.append(fe.required("spec.sessionAffinityConfig.clientIP.timeoutSeconds", when))
        else:
            timeout = as_int(as_dict(client_ip).get("timeoutSeconds"))
            if not 0 < timeout <= MAX_CLIENT_IP_TIMEOUT:
                errs.append(fe.invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout,
                                       f"must be greater than 0 and less than {MAX_CLIENT_IP_TIMEOUT}"))
    elif affinity == "None" and config is not None:
        errs.append(fe.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    return errs


def validate_cluster_ip_fields(spec: JSON) -> list[FieldError]:
    """ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs agree, the families and the policy are
    known, the addresses valid and at most one per family."""
    if spec.get("type") == "ExternalName":
        return []
    errs: list[FieldError] = []
    ips, cluster_ip = cluster_ips(spec), as_str(spec.get("clusterIP"))
    if cluster_ip:
        if not ips:
            errs.append(fe.required("spec.clusterIPs"))
        elif ips[0] != cluster_ip:
            errs.append(fe.invalid("spec.clusterIPs", _ip_list(ips), "first value must match `clusterIP`"))
    elif ips:
        errs.append(fe.invalid("spec.clusterIPs", _ip_list(ips), "must be empty when `clusterIP` is not specified"))
    families = [as_str(family) for family in as_list(spec.get("ipFamilies"))]
    seen: set[str] = set()
    for index, family in enumerate(families):
        if family not in IP_FAMILIES:
            errs.append(fe.not_supported(f"spec.ipFamilies[{index}]", family, IP_FAMILIES))
        if family in seen:
            errs.append(fe.duplicate(f"spec.ipFamilies[{index}]", family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in IP_FAMILY_POLICIES:
        errs.append(fe.not_supported("spec.ipFamilyPolicy", as_str(policy), IP_FAMILY_POLICIES))
    invalid_ips = False
    for index, ip in enumerate(ips):
        if index == 0 and ip == "None":
            if len(ips) > 1:
                invalid_ips = True
                errs.append(fe.invalid("spec.clusterIPs", _ip_list(ips), "'None' must be the first and only value"))
            continue
        messages = names.is_valid_ip(ip)
        invalid_ips = invalid_ips or bool(messages)
        errs += [fe.invalid(f"spec.clusterIPs[{index}]", ip, message) for message in messages]
    if len(ips) > 2:
        errs.append(fe.invalid("spec.clusterIPs", _ip_list(ips), "may only hold up to 2 values"))
    if invalid_ips:
        return errs
    if len(ips) > 1:
        parsed = [names.parse_ip_sloppy(ip) for ip in ips]
        if len({names.is_ipv6(ip) for ip in parsed if ip is not None}) != 2 or len(ips) > 2:
            errs.append(fe.invalid("spec.clusterIPs", _ip_list(ips),
                                   "may specify no more than one IP for each IP family"))
    if not is_headless(spec):
        for index, ip in enumerate(ips[:len(families)]):
            parsed_ip = names.parse_ip_sloppy(ip)
            ipv6 = parsed_ip is not None and names.is_ipv6(parsed_ip)
            if families[index] == "IPv4" and ipv6:
                errs.append(fe.invalid(f"spec.clusterIPs[{index}]", ip,
                                       f"expected an IPv4 value as indicated by `ipFamilies[{index}]`"))
            if families[index] == "IPv6" and not ipv6:
                errs.append(fe.invalid(f"spec.clusterIPs[{index}]", ip,
                                       f"expected an IPv6 value as indicated by `ipFamilies[{index}]`"))
    return errs


def _go_service_port(protocol: str, port: int) -> GoText:
    return GoText(f'core.ServicePort{{Name:"", Protocol:"{protocol}", AppProtocol:(*string)(nil), Port:{port}, '
                  "TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}")


def _validate_port_uniqueness(ports: list[Any]) -> list[FieldError]:
    """No NodePort twice for one protocol; no (protocol, port) twice."""
    errs: list[FieldError] = []
    node_ports: set[tuple[str, int]] = set()
    for index, raw in enumerate(ports):
        port = as_dict(raw)
        node_port = as_int(port.get("nodePort"))
        if not node_port:
            continue
        key = (as_str(port.get("protocol")), node_port)
        if key in node_ports:
            errs.append(fe.duplicate(f"spec.ports[{index}].nodePort", node_port))
        node_ports.add(key)
    seen: set[tuple[str, int]] = set()
    for index, raw in enumerate(ports):
        port = as_dict(raw)
        key = (as_str(port.get("protocol")), as_int(port.get("port")))
        if key in seen:
            errs.append(fe.duplicate(f"spec.ports[{index}]", _go_service_port(*key)))
        seen.add(key)
    return errs


def _validate_source_ranges(spec: JSON, annotations: JSON) -> list[FieldError]:
    errs: list[FieldError] = []
    ranges = as_list(spec.get("loadBalancerSourceRanges"))
    if ranges:
        path = "spec.LoadBalancerSourceRanges"
        if spec.get("type") != "LoadBalancer":
            errs.append(fe.forbidden(path, ONLY_LOAD_BALANCER))
        for index, value in enumerate(ranges):
            text = as_str(value).strip()
            errs += [fe.invalid(f"{path}[{index}]", text, message) for message in names.is_valid_cidr(text)]
    elif SOURCE_RANGES in annotations:
        path = f"metadata.annotations[{SOURCE_RANGES}]"
        if spec.get("type") != "LoadBalancer":
            errs.append(fe.forbidden(path, ONLY_LOAD_BALANCER))
        text = as_str(annotations[SOURCE_RANGES]).strip()
        for value in text.split(",") if text else []:
            errs += [fe.invalid(path, value.strip(), message) for message in names.is_valid_cidr(value.strip())]
    return errs


def _validate_load_balancer_class(spec: JSON, old_spec: JSON | None) -> list[FieldError]:
    errs: list[FieldError] = []
    value = spec.get("loadBalancerClass")
    if old_spec is not None and old_spec.get("type") == "LoadBalancer" and spec.get("type") == "LoadBalancer" \
            and old_spec.get("loadBalancerClass") != value:
        errs.append(fe.invalid("spec.loadBalancerClass", GoText("null") if value is None else as_str(value),
                               "may not change once set"))
    if spec.get("type") == "LoadBalancer":
        if value is not None:
            errs += [fe.invalid("spec.loadBalancerClass", as_str(value), message)
                     for message in names.is_qualified_name(as_str(value))]
    elif value is not None:
        errs.append(fe.forbidden("spec.loadBalancerClass", ONLY_LOAD_BALANCER))
    return errs


def _validate_external_traffic_policy(spec: JSON) -> list[FieldError]:
    errs: list[FieldError] = []
    policy = as_str(spec.get("externalTrafficPolicy"))
    if not externally_accessible(spec):
        if policy:
            errs.append(fe.invalid("spec.externalTrafficPolicy", policy,
                                   "may only be set for externally-accessible services"))
    elif not policy:
        errs.append(fe.required("spec.externalTrafficPolicy"))
    elif policy not in TRAFFIC_POLICIES:
        errs.append(fe.not_supported("spec.externalTrafficPolicy", policy, TRAFFIC_POLICIES))
    health = as_int(spec.get("healthCheckNodePort"))
    if not needs_health_check(spec):
        if health:
            errs.append(fe.invalid("spec.healthCheckNodePort", health,
                                   "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is "
                                   "'Local'"))
    elif not health:
        errs.append(fe.required("spec.healthCheckNodePort"))
    else:
        errs += [fe.invalid("spec.healthCheckNodePort", health, message) for message in names.is_valid_port_num(health)]
    return errs


def _validate_internal_traffic_policy(spec: JSON) -> list[FieldError]:
    policy = spec.get("internalTrafficPolicy")
    if policy is None:
        if spec.get("type") in ("NodePort", "LoadBalancer", "ClusterIP"):
            return [fe.required("spec.internalTrafficPolicy")]
        return []
    if policy not in TRAFFIC_POLICIES:
        return [fe.not_supported("spec.internalTrafficPolicy", as_str(policy), TRAFFIC_POLICIES)]
    return []


def validate_service_update(new: JSON, old: JSON) -> list[FieldError]:
    """ValidateServiceUpdate: the metadata update, the cluster IPs and IP families that may not change
    (except to, from and as ExternalName), the load balancer class, the health check port; then the Service."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs += _validate_cluster_ip_changes(spec, old_spec)
    errs += _validate_family_changes(spec, old_spec)
    errs += _validate_load_balancer_class(spec, old_spec)
    if needs_health_check(old_spec) and needs_health_check(spec) \
            and as_int(spec.get("healthCheckNodePort")) != as_int(old_spec.get("healthCheckNodePort")):
        errs.append(fe.forbidden("spec.healthCheckNodePort", "field is immutable"))
    return errs + validate_service(new)


def _policy_value(spec: JSON) -> Any:
    policy = spec.get("ipFamilyPolicy")
    return GoText("null") if policy is None else as_str(policy)


def _validate_cluster_ip_changes(spec: JSON, old_spec: JSON) -> list[FieldError]:
    if "ExternalName" in (spec.get("type"), old_spec.get("type")):
        return []
    if is_headless(spec) and is_headless(old_spec):
        return []
    ips, old_ips = cluster_ips(spec), cluster_ips(old_spec)
    errs: list[FieldError] = []
    if len(ips) == len(old_ips):
        errs += [fe.invalid(f"spec.clusterIPs[{index}]", _ip_list(ips), "may not change once set")
                 for index, ip in enumerate(old_ips) if ip != ips[index]]
    elif len(old_ips) > len(ips):
        if not ips:
            errs.append(fe.invalid("spec.clusterIPs[0]", _ip_list(ips), "primary clusterIP can not be unset"))
        if old_ips and ips and ips[0] != old_ips[0]:
            errs.append(fe.invalid("spec.clusterIPs[0]", _ip_list(ips), "may not change once set"))
        if len(ips) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errs.append(fe.invalid("spec.ipFamilyPolicy", _policy_value(spec),
                                   "must be set to 'SingleStack' when releasing the secondary clusterIP"))
    elif old_ips and ips[0] != old_ips[0]:
        errs.append(fe.invalid("spec.clusterIPs[0]", _ip_list(ips), "may not change once set"))
    return errs


def _validate_family_changes(spec: JSON, old_spec: JSON) -> list[FieldError]:
    if "ExternalName" in (spec.get("type"), old_spec.get("type")):
        return []
    if is_headless(spec) or is_headless(old_spec):
        return []
    families = [as_str(f) for f in as_list(spec.get("ipFamilies"))]
    old_families = [as_str(f) for f in as_list(old_spec.get("ipFamilies"))]
    errs: list[FieldError] = []
    if len(families) == len(old_families):
        errs += [fe.invalid("spec.ipFamilies[0]", _ip_list(families), "may not change once set")
                 for index, family in enumerate(old_families) if family != families[index]]
    elif len(old_families) > len(families):
        if not cluster_ips(spec):
            errs.append(fe.invalid("spec.ipFamilies[0]", _ip_list(families), "primary ipFamily can not be unset"))
        if families and families[0] != old_families[0]:
            errs.append(fe.invalid("spec.ipFamilies[0]", _ip_list(cluster_ips(spec)), "may not change once set"))
        if len(families) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errs.append(fe.invalid("spec.ipFamilyPolicy", _policy_value(spec),
                                   "must be set to 'SingleStack' when releasing the secondary ipFamily"))
    elif old_families and families and families[0] != old_families[0]:
        errs.append(fe.invalid("spec.ipFamilies[0]", _ip_list(cluster_ips(spec)), "may not change once set"))
    return errs


def validate_service_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    spec = as_dict(new.get("spec"))
    load_balancer = as_dict(as_dict(new.get("status")).get("loadBalancer"))
    ingresses = as_list(load_balancer.get("ingress"))
    path = "status.loadBalancer.ingress"
    if ingresses and spec.get("type") != "LoadBalancer":
        return errs + [fe.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")]
    for index, raw in enumerate(ingresses):
        ingress, at = as_dict(raw), f"{path}[{index}]"
        ip, mode, hostname = as_str(ingress.get("ip")), ingress.get("ipMode"), as_str(ingress.get("hostname"))
        if ip:
            errs += [fe.invalid(f"{at}.ip", ip, message) for message in names.is_valid_ip(ip)]
        if mode is None:
            if ip:
                errs.append(fe.required(f"{at}.ipMode", "must be specified when `ip` is set"))
        elif not ip:
            errs.append(fe.forbidden(f"{at}.ipMode", "may not be specified when `ip` is not set"))
        elif mode not in LB_IP_MODES:
            errs.append(fe.not_supported(f"{at}.ipMode", as_str(mode), LB_IP_MODES))
        if hostname:
            errs += [fe.invalid(f"{at}.hostname", hostname, m) for m in names.is_dns1123_subdomain(hostname)]
            if names.parse_ip_sloppy(hostname) is not None:
                errs.append(fe.invalid(f"{at}.hostname", hostname, "must be a DNS name, not an IP address"))
    return errs
