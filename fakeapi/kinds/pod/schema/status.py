"""core/v1 PodStatus and everything under it: conditions, container statuses, IPs."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.kinds.pod.schema.container import ResourceRequirementsSchema
from fakeapi.machinery.schemas.base import Int32, Int64, K8sSchema, ResourceList, Time, doc


class PodConditionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodCondition"

    type = fields.String(required=True, metadata=doc("Type is the type of the condition."))
    observedGeneration = Int64(
        metadata=doc(
            "If set, this represents the .metadata.generation that the pod condition was set based "
            "upon. Alpha in v1.33 (PodObservedGenerationTracking)."
        ),
    )
    status = fields.String(
        required=True,
        metadata=doc("Status is the status of the condition. Can be True, False, Unknown."),
    )
    lastProbeTime = Time(metadata=doc("Last time we probed the condition."))
    lastTransitionTime = Time(
        metadata=doc("Last time the condition transitioned from one status to another."),
    )
    reason = fields.String(
        metadata=doc("Unique, one-word, CamelCase reason for the condition's last transition."),
    )
    message = fields.String(metadata=doc("Human-readable message indicating details about last transition."))


class HostIPSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.HostIP"

    ip = fields.String(required=True, metadata=doc("IP is the IP address assigned to the host"))


class PodIPSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodIP"

    ip = fields.String(required=True, metadata=doc("IP is the IP address assigned to the pod"))


class ContainerStateWaitingSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerStateWaiting"

    reason = fields.String(metadata=doc("(brief) reason the container is not yet running."))
    message = fields.String(metadata=doc("Message regarding why the container is not yet running."))


class ContainerStateRunningSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerStateRunning"

    startedAt = Time(metadata=doc("Time at which the container was last (re-)started"))


class ContainerStateTerminatedSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerStateTerminated"

    exitCode = Int32(required=True, metadata=doc("Exit status from the last termination of the container"))
    signal = Int32(metadata=doc("Signal from the last termination of the container"))
    reason = fields.String(metadata=doc("(brief) reason from the last termination of the container"))
    message = fields.String(metadata=doc("Message regarding the last termination of the container"))
    startedAt = Time(metadata=doc("Time at which previous execution of the container started"))
    finishedAt = Time(metadata=doc("Time at which the container last terminated"))
    containerID = fields.String(metadata=doc("Container's ID in the format '<type>://<container_id>'"))


class ContainerStateSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerState"

    waiting = fields.Nested(ContainerStateWaitingSchema, metadata=doc("Details about a waiting container."))
    running = fields.Nested(ContainerStateRunningSchema, metadata=doc("Details about a running container."))
    terminated = fields.Nested(
        ContainerStateTerminatedSchema,
        metadata=doc("Details about a terminated container."),
    )


class VolumeMountStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.VolumeMountStatus"

    name = fields.String(
        required=True,
        metadata=doc("Name corresponds to the name of the original VolumeMount."),
    )
    mountPath = fields.String(
        required=True,
        metadata=doc("MountPath corresponds to the original VolumeMount."),
    )
    readOnly = fields.Boolean(metadata=doc("ReadOnly corresponds to the original VolumeMount."))
    recursiveReadOnly = fields.String(
        metadata=doc(
            "RecursiveReadOnly must be set to Disabled, Enabled, or unspecified (for non-readonly mounts).",
            pointer=True,
        ),
    )


class LinuxContainerUserSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.LinuxContainerUser"

    uid = Int64(
        required=True,
        metadata=doc("UID is the primary uid initially attached to the first process in the container"),
    )
    gid = Int64(
        required=True,
        metadata=doc("GID is the primary gid initially attached to the first process in the container"),
    )
    supplementalGroups = fields.List(
        Int64(),
        metadata=doc(
            "SupplementalGroups are the supplemental groups initially attached to the first process in "
            "the container",
            list_type="atomic",
        ),
    )


class ContainerUserSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerUser"

    linux = fields.Nested(
        LinuxContainerUserSchema,
        metadata=doc(
            "Linux holds user identity information initially attached to the first process of the "
            "containers in Linux."
        ),
    )


class ResourceHealthSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ResourceHealth"

    resourceID = fields.String(
        required=True,
        metadata=doc(
            "ResourceID is the unique identifier of the resource. See the ResourceID type for more "
            "information."
        ),
    )
    health = fields.String(
        metadata=doc(
            "Health of the resource. can be one of: - Healthy: operates as normal - Unhealthy: reported"
            " unhealthy.",
        ),
    )


class ResourceStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ResourceStatus"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name of the resource. Must be unique within the pod and in case of non-DRA resource, match"
            " one of the resources from the pod spec.",
        ),
    )
    resources = fields.List(
        fields.Nested(ResourceHealthSchema),
        metadata=doc(
            "List of unique resources health. Each element in the list contains an unique resource ID "
            "and its health.",
            list_type="map",
            map_keys=["resourceID"],
        ),
    )


class ContainerStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerStatus"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name is a DNS_LABEL representing the unique name of the container. Each container in a pod"
            " must have a unique name across all container types. Cannot be updated.",
        ),
    )
    state = fields.Nested(
        ContainerStateSchema,
        metadata=doc("State holds details about the container's current condition.", pointer=False),
    )
    lastState = fields.Nested(
        ContainerStateSchema,
        metadata=doc(
            "LastTerminationState holds the last termination state of the container to help debug "
            "container crashes and restarts.",
            pointer=False,
        ),
    )
    ready = fields.Boolean(
        required=True,
        metadata=doc(
            "Ready specifies whether the container is currently passing its readiness check. The value "
            "will change as readiness probes keep executing.",
        ),
    )
    restartCount = Int32(
        required=True,
        metadata=doc("RestartCount holds the number of times the container has been restarted."),
    )
    image = fields.String(
        required=True,
        metadata=doc("Image is the name of container image that the container is running."),
    )
    imageID = fields.String(
        required=True,
        metadata=doc(
            "ImageID is the image ID of the container's image. The image ID may not match the image ID "
            "of the image used in the PodSpec, as it may have been resolved by the runtime.",
        ),
    )
    containerID = fields.String(
        metadata=doc("ContainerID is the ID of the container in the format '<type>://<container_id>'."),
    )
    started = fields.Boolean(
        metadata=doc(
            "Started indicates whether the container has finished its postStart lifecycle hook and "
            "passed its startup probe.",
            pointer=True,
        ),
    )
    allocatedResources = ResourceList(
        metadata=doc(
            "AllocatedResources represents the compute resources allocated for this container by the node.",
        ),
    )
    resources = fields.Nested(
        ResourceRequirementsSchema,
        metadata=doc(
            "Resources represents the compute resource requests and limits that have been successfully "
            "enacted on the running container.",
        ),
    )
    volumeMounts = fields.List(
        fields.Nested(VolumeMountStatusSchema),
        metadata=doc(
            "Status of volume mounts.",
            merge_key="mountPath",
            strategy="merge",
            list_type="map",
            map_keys=["mountPath"],
        ),
    )
    user = fields.Nested(
        ContainerUserSchema,
        metadata=doc(
            "User represents user identity information initially attached to the first process of the "
            "container.",
        ),
    )
    allocatedResourcesStatus = fields.List(
        fields.Nested(ResourceStatusSchema),
        metadata=doc(
            "AllocatedResourcesStatus represents the status of various resources allocated for this Pod.",
            list_type="map",
            map_keys=["name"],
        ),
    )


class PodResourceClaimStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodResourceClaimStatus"

    name = fields.String(
        required=True,
        metadata=doc("Name uniquely identifies this resource claim inside the pod."),
    )
    resourceClaimName = fields.String(
        metadata=doc(
            "ResourceClaimName is the name of the ResourceClaim that was generated for the Pod in the "
            "namespace of the Pod.",
            pointer=True,
        ),
    )


class PodStatusSchema(K8sSchema):
    """The most recently observed status of a pod; it may trail the actual state of the system."""

    openapi_name = "io.k8s.api.core.v1.PodStatus"

    observedGeneration = Int64(
        metadata=doc(
            "If set, this represents the .metadata.generation that the pod status was set based upon.",
        ),
    )
    phase = fields.String(
        metadata=doc(
            "The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle.",
        ),
    )
    conditions = fields.List(
        fields.Nested(PodConditionSchema),
        metadata=doc(
            "Current service state of pod.",
            merge_key="type",
            strategy="merge",
            list_type="map",
            map_keys=["type"],
        ),
    )
    message = fields.String(
        metadata=doc("A human readable message indicating details about why the pod is in this condition."),
    )
    reason = fields.String(
        metadata=doc(
            "A brief CamelCase message indicating details about why the pod is in this state. e.g. 'Evicted'"
        ),
    )
    nominatedNodeName = fields.String(
        metadata=doc(
            "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot"
            " be scheduled right away as preemption victims receive their graceful termination periods.",
        ),
    )
    hostIP = fields.String(
        metadata=doc(
            "hostIP holds the IP address of the host to which the pod is assigned. Empty if the pod has"
            " not started yet.",
        ),
    )
    hostIPs = fields.List(
        fields.Nested(HostIPSchema),
        metadata=doc(
            "hostIPs holds the IP addresses allocated to the host. If this field is specified, the "
            "first entry must match the hostIP field.",
            merge_key="ip",
            strategy="merge",
            list_type="atomic",
        ),
    )
    podIP = fields.String(
        metadata=doc(
            "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet"
            " allocated.",
        ),
    )
    podIPs = fields.List(
        fields.Nested(PodIPSchema),
        metadata=doc(
            "podIPs holds the IP addresses allocated to the pod. If this field is specified, the 0th "
            "entry must match the podIP field.",
            merge_key="ip",
            strategy="merge",
            list_type="map",
            map_keys=["ip"],
        ),
    )
    startTime = Time(
        metadata=doc(
            "RFC 3339 date and time at which the object was acknowledged by the Kubelet. This is before"
            " the Kubelet pulled the container image(s) for the pod.",
            pointer=True,
        ),
    )
    initContainerStatuses = fields.List(
        fields.Nested(ContainerStatusSchema),
        metadata=doc("Statuses of init containers in this pod.", list_type="atomic"),
    )
    containerStatuses = fields.List(
        fields.Nested(ContainerStatusSchema),
        metadata=doc(
            "Statuses of containers in this pod. Each container in the pod should have at most one "
            "status in this list, and all statuses should be for containers in the pod.",
            list_type="atomic",
        ),
    )
    qosClass = fields.String(
        metadata=doc(
            "The Quality of Service (QOS) classification assigned to the pod based on resource "
            "requirements See PodQOSClass type for available QOS classes"
        ),
    )
    ephemeralContainerStatuses = fields.List(
        fields.Nested(ContainerStatusSchema),
        metadata=doc("Statuses for any ephemeral containers that have run in this pod.", list_type="atomic"),
    )
    resize = fields.String(
        metadata=doc(
            "Status of resources resize desired for pod's containers. It is empty if no resources "
            "resize is pending."
        ),
    )
    resourceClaimStatuses = fields.List(
        fields.Nested(PodResourceClaimStatusSchema),
        metadata=doc(
            "Status of resource claims.",
            merge_key="name",
            strategy="merge,retainKeys",
            list_type="map",
            map_keys=["name"],
        ),
    )
