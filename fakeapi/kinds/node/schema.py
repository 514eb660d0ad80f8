"""core/v1 Node and NodeList, with NodeSpec (taints, pod CIDRs) and NodeStatus (capacity, conditions,
addresses, system info...), in upstream's field order and with its patch and list-type markers."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import Int32, Int64, K8sSchema, ResourceList, Time, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema


class TaintSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Taint"

    key = fields.String(required=True, metadata=doc("The key of the taint, applied to the node."))
    value = fields.String(metadata=doc("The value that goes with the taint's key."))
    effect = fields.String(
        required=True,
        metadata=doc(
            "What happens to pods that do not tolerate the taint: NoSchedule, PreferNoSchedule or NoExecute."
        ),
    )
    timeAdded = Time(metadata=doc("When the taint was added; only NoExecute taints carry it.", pointer=True))


class ConfigMapNodeConfigSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ConfigMapNodeConfigSource"

    namespace = fields.String(required=True, metadata=doc("Namespace of the ConfigMap referred to."))
    name = fields.String(required=True, metadata=doc("Name of the ConfigMap referred to."))
    uid = fields.String(metadata=doc("UID of the ConfigMap referred to; only in a node's status."))
    resourceVersion = fields.String(
        metadata=doc("resourceVersion of the ConfigMap referred to; only in a node's status."),
    )
    kubeletConfigKey = fields.String(
        required=True,
        metadata=doc("The ConfigMap key that holds the kubelet configuration."),
    )


class NodeConfigSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeConfigSource"

    configMap = fields.Nested(
        ConfigMapNodeConfigSourceSchema,
        metadata=doc("A ConfigMap that holds the node's configuration (a removed feature)."),
    )


class NodeSpecSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeSpec"

    podCIDR = fields.String(metadata=doc("The range of pod IPs given to the node (the first of podCIDRs)."))
    podCIDRs = fields.List(
        fields.String(),
        metadata=doc(
            "The ranges of pod IPs given to the node, at most one per IP family; the first one is also "
            "podCIDR.",
            strategy="merge",
            list_type="set",
        ),
    )
    providerID = fields.String(
        metadata=doc("The node's ID at its cloud provider, as <ProviderName>://<ProviderSpecificNodeID>."),
    )
    unschedulable = fields.Boolean(
        metadata=doc("Whether new pods may be scheduled onto the node (false: they may; the default)."),
    )
    taints = fields.List(
        fields.Nested(TaintSchema),
        metadata=doc("The node's taints, if any.", list_type="atomic"),
    )
    configSource = fields.Nested(
        NodeConfigSourceSchema,
        metadata=doc("Deprecated and unused: where dynamic kubelet configuration came from (removed feature)."),
    )
    externalID = fields.String(metadata=doc("Deprecated and unused by Kubernetes; some kubelets still set it."))


class NodeConditionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeCondition"

    type = fields.String(required=True, metadata=doc("The condition's type, e.g. Ready or MemoryPressure."))
    status = fields.String(required=True, metadata=doc("True, False or Unknown."))
    lastHeartbeatTime = Time(metadata=doc("When the condition was last reported."))
    lastTransitionTime = Time(metadata=doc("When the condition's status last changed."))
    reason = fields.String(metadata=doc("A short CamelCase reason for the last change."))
    message = fields.String(metadata=doc("A message for humans about the last change."))


class NodeAddressSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeAddress"

    type = fields.String(required=True, metadata=doc("Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS."))
    address = fields.String(required=True, metadata=doc("The address itself."))


class DaemonEndpointSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.DaemonEndpoint"

    Port = Int32(required=True, metadata=doc("The endpoint's port number."))


class NodeDaemonEndpointsSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeDaemonEndpoints"

    kubeletEndpoint = fields.Nested(DaemonEndpointSchema, metadata=doc("Where the kubelet listens.", pointer=False))


class NodeSystemInfoSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeSystemInfo"

    machineID = fields.String(required=True, metadata=doc("The machine-id the node reports (man 5 machine-id)."))
    systemUUID = fields.String(required=True, metadata=doc("The system UUID the node reports."))
    bootID = fields.String(required=True, metadata=doc("The ID of the node's current boot."))
    kernelVersion = fields.String(required=True, metadata=doc("The kernel version, as `uname -r` prints it."))
    osImage = fields.String(required=True, metadata=doc("The operating system image, from /etc/os-release."))
    containerRuntimeVersion = fields.String(
        required=True,
        metadata=doc("The container runtime and its version, e.g. containerd://1.7.24."),
    )
    kubeletVersion = fields.String(required=True, metadata=doc("The kubelet's version."))
    kubeProxyVersion = fields.String(required=True, metadata=doc("Deprecated: the kube-proxy version reported."))
    operatingSystem = fields.String(required=True, metadata=doc("The operating system, e.g. linux."))
    architecture = fields.String(required=True, metadata=doc("The CPU architecture, e.g. amd64."))


class ContainerImageSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerImage"

    names = fields.List(
        fields.String(),
        metadata=doc("The names the image is known by (tags and digests).", list_type="atomic", omitempty=False),
    )
    sizeBytes = Int64(metadata=doc("The image's size in bytes."))


class AttachedVolumeSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.AttachedVolume"

    name = fields.String(required=True, metadata=doc("The attached volume's unique name."))
    devicePath = fields.String(required=True, metadata=doc("Where the volume's device is available on the node."))


class NodeConfigStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeConfigStatus"

    assigned = fields.Nested(NodeConfigSourceSchema, metadata=doc("The configuration the node will try to use."))
    active = fields.Nested(NodeConfigSourceSchema, metadata=doc("The configuration the node uses."))
    lastKnownGood = fields.Nested(
        NodeConfigSourceSchema,
        metadata=doc("The configuration the node falls back to when the assigned one fails."),
    )
    error = fields.String(metadata=doc("What went wrong applying the assigned configuration, if anything."))


class NodeRuntimeHandlerFeaturesSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeRuntimeHandlerFeatures"

    recursiveReadOnlyMounts = fields.Boolean(
        metadata=doc("Whether the runtime handler supports recursive read-only mounts.", pointer=True),
    )
    userNamespaces = fields.Boolean(
        metadata=doc("Whether the runtime handler supports user namespaces, volumes included.", pointer=True),
    )


class NodeRuntimeHandlerSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeRuntimeHandler"

    name = fields.String(metadata=doc("The handler's name; empty for the default handler.", omitempty=False))
    features = fields.Nested(NodeRuntimeHandlerFeaturesSchema, metadata=doc("What the handler supports."))


class NodeFeaturesSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeFeatures"

    supplementalGroupsPolicy = fields.Boolean(
        metadata=doc(
            "Whether the container runtime supports supplementalGroupsPolicy and the container user.",
            pointer=True,
        ),
    )


class NodeStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NodeStatus"

    capacity = ResourceList(metadata=doc("All the resources the node has."))
    allocatable = ResourceList(
        metadata=doc("The resources of the node that pods may be scheduled onto; capacity when unset."),
    )
    phase = fields.String(metadata=doc("Deprecated and never set: the node's lifecycle phase."))
    conditions = fields.List(
        fields.Nested(NodeConditionSchema),
        metadata=doc(
            "The node's observed conditions (Ready, MemoryPressure, DiskPressure, PIDPressure...).",
            merge_key="type",
            strategy="merge",
            list_type="map",
            map_keys=["type"],
        ),
    )
    addresses = fields.List(
        fields.Nested(NodeAddressSchema),
        metadata=doc(
            "The addresses the node is reachable at. The merge key (type) is not unique enough for merging: "
            "replace the whole list when patching.",
            merge_key="type",
            strategy="merge",
            list_type="map",
            map_keys=["type"],
        ),
    )
    daemonEndpoints = fields.Nested(
        NodeDaemonEndpointsSchema,
        metadata=doc("The ports of the daemons that run on the node.", pointer=False),
    )
    nodeInfo = fields.Nested(
        NodeSystemInfoSchema,
        metadata=doc("IDs and versions that describe the node.", pointer=False),
    )
    images = fields.List(
        fields.Nested(ContainerImageSchema),
        metadata=doc("The container images present on the node.", list_type="atomic"),
    )
    volumesInUse = fields.List(
        fields.String(),
        metadata=doc("The attachable volumes the node has mounted.", list_type="atomic"),
    )
    volumesAttached = fields.List(
        fields.Nested(AttachedVolumeSchema),
        metadata=doc("The volumes attached to the node.", list_type="atomic"),
    )
    config = fields.Nested(
        NodeConfigStatusSchema,
        metadata=doc("The state of the node's dynamic kubelet configuration (a removed feature)."),
    )
    runtimeHandlers = fields.List(
        fields.Nested(NodeRuntimeHandlerSchema),
        metadata=doc("The container runtime handlers available.", list_type="atomic"),
    )
    features = fields.Nested(NodeFeaturesSchema, metadata=doc("What the container runtime supports."))


class NodeSchema(TypedSchema):
    """A worker machine of the cluster, as its kubelet registered it."""

    openapi_name = "io.k8s.api.core.v1.Node"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    spec = fields.Nested(
        NodeSpecSchema,
        metadata=doc("What the node is created with: taints, pod CIDRs...", pointer=False),
    )
    status = fields.Nested(
        NodeStatusSchema,
        metadata=doc("What the node reports about itself. Written by the system.", pointer=False),
    )


class NodeListSchema(TypedSchema):
    """A list of Nodes."""

    openapi_name = "io.k8s.api.core.v1.NodeList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(fields.Nested(NodeSchema), required=True, metadata=doc("The nodes."))
