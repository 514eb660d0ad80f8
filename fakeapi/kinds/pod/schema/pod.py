"""core/v1 Pod, PodSpec and PodList (the types under them live in the sibling modules)."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.kinds.pod.schema.container import (
    ContainerSchema,
    EphemeralContainerSchema,
    LocalObjectReferenceSchema,
    ResourceRequirementsSchema,
)
from fakeapi.kinds.pod.schema.scheduling import AffinitySchema, TolerationSchema, TopologySpreadConstraintSchema
from fakeapi.kinds.pod.schema.security import PodSecurityContextSchema
from fakeapi.kinds.pod.schema.status import PodStatusSchema
from fakeapi.kinds.pod.schema.volume import VolumeSchema
from fakeapi.machinery.schemas.base import Int32, Int64, K8sSchema, ResourceList, StringMap, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema


class PodDNSConfigOptionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodDNSConfigOption"

    name = fields.String(metadata=doc("Name is this DNS resolver option's name. Required."))
    value = fields.String(metadata=doc("Value is this DNS resolver option's value.", pointer=True))


class PodDNSConfigSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodDNSConfig"

    nameservers = fields.List(
        fields.String(),
        metadata=doc(
            "A list of DNS name server IP addresses. This will be appended to the base nameservers "
            "generated from DNSPolicy. Duplicated nameservers will be removed.",
            list_type="atomic",
        ),
    )
    searches = fields.List(
        fields.String(),
        metadata=doc(
            "A list of DNS search domains for host-name lookup. This will be appended to the base "
            "search paths generated from DNSPolicy. Duplicated search paths will be removed.",
            list_type="atomic",
        ),
    )
    options = fields.List(
        fields.Nested(PodDNSConfigOptionSchema),
        metadata=doc(
            "A list of DNS resolver options. This will be merged with the base options generated from "
            "DNSPolicy. Duplicated entries will be removed.",
            list_type="atomic",
        ),
    )


class HostAliasSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.HostAlias"

    ip = fields.String(required=True, metadata=doc("IP address of the host file entry."))
    hostnames = fields.List(
        fields.String(),
        metadata=doc("Hostnames for the above IP address.", list_type="atomic"),
    )


class PodOSSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodOS"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name is the name of the operating system. The currently supported values are linux and windows."
        ),
    )


class PodReadinessGateSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodReadinessGate"

    conditionType = fields.String(
        required=True,
        metadata=doc("ConditionType refers to a condition in the pod's condition list with matching type."),
    )


class PodResourceClaimSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodResourceClaim"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name uniquely identifies this resource claim inside the pod. This must be a DNS_LABEL."
        ),
    )
    resourceClaimName = fields.String(
        metadata=doc(
            "ResourceClaimName is the name of a ResourceClaim object in the same namespace as this pod."
            " Exactly one of ResourceClaimName and ResourceClaimTemplateName must be set.",
            pointer=True,
        ),
    )
    resourceClaimTemplateName = fields.String(
        metadata=doc(
            "ResourceClaimTemplateName is the name of a ResourceClaimTemplate object in the same "
            "namespace as this pod.",
            pointer=True,
        ),
    )


class PodSchedulingGateSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodSchedulingGate"

    name = fields.String(
        required=True,
        metadata=doc("Name of the scheduling gate. Each scheduling gate must have a unique name field."),
    )


class PodSpecSchema(K8sSchema):
    """The desired behaviour of a pod."""

    openapi_name = "io.k8s.api.core.v1.PodSpec"

    volumes = fields.List(
        fields.Nested(VolumeSchema),
        metadata=doc(
            "List of volumes that can be mounted by containers belonging to the pod.",
            merge_key="name",
            strategy="merge,retainKeys",
            list_type="map",
            map_keys=["name"],
        ),
    )
    initContainers = fields.List(
        fields.Nested(ContainerSchema),
        metadata=doc(
            "List of initialization containers belonging to the pod. Init containers are executed in "
            "order prior to containers being started.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    containers = fields.List(
        fields.Nested(ContainerSchema),
        required=True,
        metadata=doc(
            "List of containers belonging to the pod. Containers cannot currently be added or removed. "
            "There must be at least one container in a Pod. Cannot be updated.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    ephemeralContainers = fields.List(
        fields.Nested(EphemeralContainerSchema),
        metadata=doc(
            "List of ephemeral containers run in this pod. Ephemeral containers may be run in an "
            "existing pod to perform user-initiated actions such as debugging.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    restartPolicy = fields.String(
        metadata=doc(
            "Restart policy for all containers within the pod. One of Always, OnFailure, Never. In some"
            " contexts, only a subset of those values may be permitted. Default to Always.",
        ),
    )
    terminationGracePeriodSeconds = Int64(
        metadata=doc(
            "Optional duration in seconds the pod needs to terminate gracefully. May be decreased in "
            "delete request. Value must be non-negative integer.",
            pointer=True,
        ),
    )
    activeDeadlineSeconds = Int64(
        metadata=doc(
            "Optional duration in seconds the pod may be active on the node relative to StartTime "
            "before the system will actively try to mark it failed and kill associated containers.",
            pointer=True,
        ),
    )
    dnsPolicy = fields.String(
        metadata=doc(
            'Set DNS policy for the pod. Defaults to "ClusterFirst". Valid values are '
            "'ClusterFirstWithHostNet', 'ClusterFirst', 'Default' or 'None'."
        ),
    )
    nodeSelector = StringMap(
        metadata=doc(
            "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which"
            " must match a node's labels for the pod to be scheduled on that node.",
            map_type="atomic",
        ),
    )
    serviceAccountName = fields.String(
        metadata=doc("ServiceAccountName is the name of the ServiceAccount to use to run this pod."),
    )
    serviceAccount = fields.String(
        metadata=doc(
            "DeprecatedServiceAccount is a deprecated alias for ServiceAccountName. Deprecated: Use "
            "serviceAccountName instead."
        ),
    )
    automountServiceAccountToken = fields.Boolean(
        metadata=doc(
            "AutomountServiceAccountToken indicates whether a service account token should be "
            "automatically mounted.",
            pointer=True,
        ),
    )
    nodeName = fields.String(
        metadata=doc(
            "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate "
            "for scheduling by the scheduler defined in schedulerName.",
        ),
    )
    hostNetwork = fields.Boolean(
        metadata=doc(
            "Host networking requested for this pod. Use the host's network namespace. If this option "
            "is set, the ports that will be used must be specified. Default to false.",
        ),
    )
    hostPID = fields.Boolean(metadata=doc("Use the host's pid namespace. Optional: Default to false."))
    hostIPC = fields.Boolean(metadata=doc("Use the host's ipc namespace. Optional: Default to false."))
    shareProcessNamespace = fields.Boolean(
        metadata=doc("Share a single process namespace between all of the containers in a pod.", pointer=True),
    )
    securityContext = fields.Nested(
        PodSecurityContextSchema,
        metadata=doc(
            "SecurityContext holds pod-level security attributes and common container settings. "
            "Optional: Defaults to empty."
        ),
    )
    imagePullSecrets = fields.List(
        fields.Nested(LocalObjectReferenceSchema),
        metadata=doc(
            "ImagePullSecrets is an optional list of references to secrets in the same namespace to use"
            " for pulling any of the images used by this PodSpec.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    hostname = fields.String(
        metadata=doc(
            "Specifies the hostname of the Pod If not specified, the pod's hostname will be set to a "
            "system-defined value.",
        ),
    )
    subdomain = fields.String(
        metadata=doc(
            'If specified, the fully qualified Pod hostname will be "<hostname>.<subdomain>.<pod '
            'namespace>.svc.<cluster domain>".'
        ),
    )
    affinity = fields.Nested(AffinitySchema, metadata=doc("If specified, the pod's scheduling constraints."))
    schedulerName = fields.String(
        metadata=doc(
            "If specified, the pod will be dispatched by specified scheduler. If not specified, the pod"
            " will be dispatched by default scheduler.",
        ),
    )
    tolerations = fields.List(
        fields.Nested(TolerationSchema),
        metadata=doc("If specified, the pod's tolerations.", list_type="atomic"),
    )
    hostAliases = fields.List(
        fields.Nested(HostAliasSchema),
        metadata=doc(
            "HostAliases is an optional list of hosts and IPs that will be injected into the pod's "
            "hosts file if specified.",
            merge_key="ip",
            strategy="merge",
            list_type="map",
            map_keys=["ip"],
        ),
    )
    priorityClassName = fields.String(metadata=doc("If specified, indicates the pod's priority."))
    priority = Int32(
        metadata=doc(
            "The priority value. Various system components use this field to find the priority of the pod.",
            pointer=True,
        ),
    )
    dnsConfig = fields.Nested(
        PodDNSConfigSchema,
        metadata=doc(
            "Specifies the DNS parameters of a pod. Parameters specified here will be merged to the "
            "generated DNS configuration based on DNSPolicy."
        ),
    )
    readinessGates = fields.List(
        fields.Nested(PodReadinessGateSchema),
        metadata=doc(
            "If specified, all readiness gates will be evaluated for pod readiness.",
            list_type="atomic",
        ),
    )
    runtimeClassName = fields.String(
        metadata=doc(
            "RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be"
            " used to run this pod.",
            pointer=True,
        ),
    )
    enableServiceLinks = fields.Boolean(
        metadata=doc(
            "EnableServiceLinks indicates whether information about services should be injected into "
            "pod's environment variables, matching the syntax of Docker links.",
            pointer=True,
        ),
    )
    preemptionPolicy = fields.String(
        metadata=doc(
            "PreemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
            "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
            pointer=True,
        ),
    )
    overhead = ResourceList(
        metadata=doc(
            "Overhead represents the resource overhead associated with running a pod for a given "
            "RuntimeClass."
        ),
    )
    topologySpreadConstraints = fields.List(
        fields.Nested(TopologySpreadConstraintSchema),
        metadata=doc(
            "TopologySpreadConstraints describes how a group of pods ought to spread across topology "
            "domains. Scheduler will schedule pods in a way which abides by the constraints.",
            merge_key="topologyKey",
            strategy="merge",
            list_type="map",
            map_keys=["topologyKey", "whenUnsatisfiable"],
        ),
    )
    setHostnameAsFQDN = fields.Boolean(
        metadata=doc(
            "If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf name"
            " (the default).",
            pointer=True,
        ),
    )
    os = fields.Nested(
        PodOSSchema,
        metadata=doc(
            "Specifies the OS of the containers in the pod. Some pod and container fields are "
            "restricted if this is set."
        ),
    )
    hostUsers = fields.Boolean(metadata=doc("Use the host's user namespace. Optional: Default to true.", pointer=True))
    schedulingGates = fields.List(
        fields.Nested(PodSchedulingGateSchema),
        metadata=doc(
            "SchedulingGates is an opaque list of values that if specified will block scheduling the pod.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    resourceClaims = fields.List(
        fields.Nested(PodResourceClaimSchema),
        metadata=doc(
            "ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod "
            "is allowed to start.",
            merge_key="name",
            strategy="merge,retainKeys",
            list_type="map",
            map_keys=["name"],
        ),
    )
    resources = fields.Nested(
        ResourceRequirementsSchema,
        metadata=doc(
            "Resources is the total amount of CPU and Memory resources required by all containers in "
            "the pod. Alpha (PodLevelResources).",
        ),
    )


class PodSchema(TypedSchema):
    """A collection of containers that can run on a host."""

    openapi_name = "io.k8s.api.core.v1.Pod"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    spec = fields.Nested(
        PodSpecSchema,
        metadata=doc("Specification of the desired behavior of the pod.", pointer=False),
    )
    status = fields.Nested(
        PodStatusSchema,
        metadata=doc(
            "Most recently observed status of the pod. This data may not be up to date. Populated by "
            "the system. Read-only.",
            pointer=False,
        ),
    )


class PodListSchema(TypedSchema):
    """A list of Pods."""

    openapi_name = "io.k8s.api.core.v1.PodList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(fields.Nested(PodSchema), required=True, metadata=doc("List of pods."))
