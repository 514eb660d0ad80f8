"""core/v1 Container and EphemeralContainer with their ports, env, resources and mounts."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields

from fakeapi.kinds.pod.schema.probe import LifecycleSchema, ProbeSchema
from fakeapi.kinds.pod.schema.security import SecurityContextSchema
from fakeapi.machinery.schemas.base import Int32, K8sSchema, Quantity, ResourceList, doc


class LocalObjectReferenceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.LocalObjectReference"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )


class ObjectFieldSelectorSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ObjectFieldSelector"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    apiVersion = fields.String(
        metadata=doc('Version of the schema the FieldPath is written in terms of, defaults to "v1".'),
    )
    fieldPath = fields.String(
        required=True,
        metadata=doc("Path of the field to select in the specified API version."),
    )


class ResourceFieldSelectorSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ResourceFieldSelector"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    containerName = fields.String(metadata=doc("Container name: required for volumes, optional for env vars"))
    resource = fields.String(required=True, metadata=doc("Required: resource to select"))
    divisor = Quantity(
        metadata=doc('Specifies the output format of the exposed resources, defaults to "1"'),
    )


class ConfigMapKeySelectorSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ConfigMapKeySelector"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    key = fields.String(required=True, metadata=doc("The key to select."))
    optional = fields.Boolean(metadata=doc("Specify whether the ConfigMap or its key must be defined", pointer=True))


class SecretKeySelectorSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SecretKeySelector"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    key = fields.String(
        required=True,
        metadata=doc("The key of the secret to select from. Must be a valid secret key."),
    )
    optional = fields.Boolean(metadata=doc("Specify whether the Secret or its key must be defined", pointer=True))


class EnvVarSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EnvVarSource"

    fieldRef = fields.Nested(
        ObjectFieldSelectorSchema,
        metadata=doc(
            "Selects a field of the pod: supports metadata.name, metadata.namespace, "
            "metadata.labels['<KEY>'], metadata.annotations['<KEY>'], spec.nodeName, "
            "spec.serviceAccountName, status.hostIP, status.podIP, status.podIPs.",
        ),
    )
    resourceFieldRef = fields.Nested(
        ResourceFieldSelectorSchema,
        metadata=doc(
            "Selects a resource of the container: only resources limits and requests are currently supported."
        ),
    )
    configMapKeyRef = fields.Nested(ConfigMapKeySelectorSchema, metadata=doc("Selects a key of a ConfigMap."))
    secretKeyRef = fields.Nested(
        SecretKeySelectorSchema,
        metadata=doc("Selects a key of a secret in the pod's namespace."),
    )


class EnvVarSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EnvVar"

    name = fields.String(
        required=True,
        metadata=doc("Name of the environment variable. Must be a C_IDENTIFIER."),
    )
    value = fields.String(
        metadata=doc(
            "Variable references $(VAR_NAME) are expanded using the previously defined environment "
            "variables in the container and any service environment variables."
        ),
    )
    valueFrom = fields.Nested(
        EnvVarSourceSchema,
        metadata=doc("Source for the environment variable's value. Cannot be used if value is not empty."),
    )


class ConfigMapEnvSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ConfigMapEnvSource"

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    optional = fields.Boolean(metadata=doc("Specify whether the ConfigMap must be defined", pointer=True))


class SecretEnvSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SecretEnvSource"

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    optional = fields.Boolean(metadata=doc("Specify whether the Secret must be defined", pointer=True))


class EnvFromSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EnvFromSource"

    prefix = fields.String(
        metadata=doc(
            "An optional identifier to prepend to each key in the ConfigMap. Must be a C_IDENTIFIER."
        ),
    )
    configMapRef = fields.Nested(ConfigMapEnvSourceSchema, metadata=doc("The ConfigMap to select from."))
    secretRef = fields.Nested(SecretEnvSourceSchema, metadata=doc("The Secret to select from."))


class ContainerPortSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerPort"

    name = fields.String(
        metadata=doc(
            "If specified, this must be an IANA_SVC_NAME and unique within the pod. Each named port in "
            "a pod must have a unique name.",
        ),
    )
    hostPort = Int32(
        metadata=doc(
            "Number of port to expose on the host. If specified, this must be a valid port number, 0 < "
            "x < 65536. If HostNetwork is specified, this must match ContainerPort.",
        ),
    )
    containerPort = Int32(
        required=True,
        metadata=doc(
            "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x "
            "< 65536.",
        ),
    )
    protocol = fields.String(
        metadata=doc('Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".'),
    )
    hostIP = fields.String(metadata=doc("What host IP to bind the external port to."))


class ResourceClaimSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ResourceClaim"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name must match the name of one entry in pod.spec.resourceClaims of the Pod where this "
            "field is used. It makes that resource available inside a container."
        ),
    )
    request = fields.String(
        metadata=doc(
            "Request is the name chosen for a request in the referenced claim. If empty, everything "
            "from the claim is made available, otherwise only the result of this request."
        ),
    )


class ResourceRequirementsSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ResourceRequirements"

    limits = ResourceList(metadata=doc("Limits describes the maximum amount of compute resources allowed."))
    requests = ResourceList(
        metadata=doc("Requests describes the minimum amount of compute resources required."),
    )
    claims = fields.List(
        fields.Nested(ResourceClaimSchema),
        metadata=doc(
            "Claims lists the names of resources, defined in spec.resourceClaims, that are used by this"
            " container.",
            list_type="map",
            map_keys=["name"],
        ),
    )


class ContainerResizePolicySchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ContainerResizePolicy"

    resourceName = fields.String(
        required=True,
        metadata=doc(
            "Name of the resource to which this resource resize policy applies. Supported values: cpu, "
            "memory.",
        ),
    )
    restartPolicy = fields.String(
        required=True,
        metadata=doc(
            "Restart policy to apply when specified resource is resized. If not specified, it defaults "
            "to NotRequired.",
        ),
    )


class VolumeMountSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.VolumeMount"

    name = fields.String(required=True, metadata=doc("This must match the Name of a Volume."))
    readOnly = fields.Boolean(
        metadata=doc(
            "Mounted read-only if true, read-write otherwise (false or unspecified). Defaults to false.",
        ),
    )
    recursiveReadOnly = fields.String(
        metadata=doc(
            "RecursiveReadOnly specifies whether read-only mounts should be handled recursively. If "
            "ReadOnly is false, this field has no meaning and must be unspecified.",
            pointer=True,
        ),
    )
    mountPath = fields.String(
        required=True,
        metadata=doc(
            "Path within the container at which the volume should be mounted. Must not contain ':'."
        ),
    )
    subPath = fields.String(
        metadata=doc(
            'Path within the volume from which the container\'s volume should be mounted. Defaults to ""'
            " (volume's root).",
        ),
    )
    mountPropagation = fields.String(
        metadata=doc(
            "mountPropagation determines how mounts are propagated from the host to container and the "
            "other way around. When not set, MountPropagationNone is used.",
            pointer=True,
        ),
    )
    subPathExpr = fields.String(
        metadata=doc("Expanded path within the volume from which the container's volume should be mounted."),
    )


class VolumeDeviceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.VolumeDevice"

    name = fields.String(
        required=True,
        metadata=doc("name must match the name of a persistentVolumeClaim in the pod"),
    )
    devicePath = fields.String(
        required=True,
        metadata=doc("devicePath is the path inside of the container that the device will be mapped to."),
    )


class ContainerSchema(K8sSchema):
    """A single application container that you want to run within a pod."""

    openapi_name = "io.k8s.api.core.v1.Container"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique"
            " name (DNS_LABEL). Cannot be updated.",
        ),
    )
    image = fields.String(metadata=doc("Container image name."))
    command = fields.List(
        fields.String(),
        metadata=doc(
            "Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is used if"
            " this is not provided.",
            list_type="atomic",
        ),
    )
    args = fields.List(
        fields.String(),
        metadata=doc(
            "Arguments to the entrypoint. The container image's CMD is used if this is not provided. "
            "Variable references $(VAR_NAME) are expanded using the container's environment.",
            list_type="atomic",
        ),
    )
    workingDir = fields.String(
        metadata=doc(
            "Container's working directory. If not specified, the container runtime's default will be "
            "used, which might be configured in the container image. Cannot be updated.",
        ),
    )
    ports = fields.List(
        fields.Nested(ContainerPortSchema),
        metadata=doc(
            "List of ports to expose from the container. Not specifying a port here DOES NOT prevent "
            "that port from being exposed.",
            merge_key="containerPort",
            strategy="merge",
            list_type="map",
            map_keys=["containerPort", "protocol"],
        ),
    )
    envFrom = fields.List(
        fields.Nested(EnvFromSourceSchema),
        metadata=doc(
            "List of sources to populate environment variables in the container. The keys defined "
            "within a source must be a C_IDENTIFIER.",
            list_type="atomic",
        ),
    )
    env = fields.List(
        fields.Nested(EnvVarSchema),
        metadata=doc(
            "List of environment variables to set in the container. Cannot be updated.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    resources = fields.Nested(
        ResourceRequirementsSchema,
        metadata=doc("Compute Resources required by this container. Cannot be updated.", pointer=False),
    )
    resizePolicy = fields.List(
        fields.Nested(ContainerResizePolicySchema),
        metadata=doc("Resources resize policy for the container.", list_type="atomic"),
    )
    restartPolicy = fields.String(
        metadata=doc(
            "RestartPolicy defines the restart behavior of individual containers in a pod. This field "
            'may only be set for init containers, and the only allowed value is "Always".',
            pointer=True,
        ),
    )
    volumeMounts = fields.List(
        fields.Nested(VolumeMountSchema),
        metadata=doc(
            "Pod volumes to mount into the container's filesystem. Cannot be updated.",
            merge_key="mountPath",
            strategy="merge",
            list_type="map",
            map_keys=["mountPath"],
        ),
    )
    volumeDevices = fields.List(
        fields.Nested(VolumeDeviceSchema),
        metadata=doc(
            "volumeDevices is the list of block devices to be used by the container.",
            merge_key="devicePath",
            strategy="merge",
            list_type="map",
            map_keys=["devicePath"],
        ),
    )
    livenessProbe = fields.Nested(
        ProbeSchema,
        metadata=doc(
            "Periodic probe of container liveness. Container will be restarted if the probe fails. "
            "Cannot be updated."
        ),
    )
    readinessProbe = fields.Nested(
        ProbeSchema,
        metadata=doc(
            "Periodic probe of container service readiness. Container will be removed from service "
            "endpoints if the probe fails. Cannot be updated."
        ),
    )
    startupProbe = fields.Nested(
        ProbeSchema,
        metadata=doc(
            "StartupProbe indicates that the Pod has successfully initialized. If specified, no other "
            "probes are executed until this completes successfully.",
        ),
    )
    lifecycle = fields.Nested(
        LifecycleSchema,
        metadata=doc(
            "Actions that the management system should take in response to container lifecycle events. "
            "Cannot be updated.",
        ),
    )
    terminationMessagePath = fields.String(
        metadata=doc(
            "Optional: Path at which the file to which the container's termination message will be "
            "written is mounted into the container's filesystem."
        ),
    )
    terminationMessagePolicy = fields.String(
        metadata=doc("Indicate how the termination message should be populated."),
    )
    imagePullPolicy = fields.String(
        metadata=doc(
            "Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag "
            "is specified, or IfNotPresent otherwise. Cannot be updated.",
        ),
    )
    securityContext = fields.Nested(
        SecurityContextSchema,
        metadata=doc(
            "SecurityContext defines the security options the container should be run with. If set, the"
            " fields of SecurityContext override the equivalent fields of PodSecurityContext.",
        ),
    )
    stdin = fields.Boolean(
        metadata=doc(
            "Whether this container should allocate a buffer for stdin in the container runtime. If "
            "this is not set, reads from stdin in the container will always result in EOF."
        ),
    )
    stdinOnce = fields.Boolean(
        metadata=doc(
            "Whether the container runtime should close the stdin channel after it has been opened by a"
            " single attach.",
        ),
    )
    tty = fields.Boolean(
        metadata=doc(
            "Whether this container should allocate a TTY for itself, also requires 'stdin' to be true."
            " Default is false.",
        ),
    )


class EphemeralContainerSchema(ContainerSchema):
    """A temporary container added to a running pod (debugging): a Container plus targetContainerName."""

    openapi_name = "io.k8s.api.core.v1.EphemeralContainer"

    name = fields.String(
        required=True,
        metadata=doc(
            "Name of the ephemeral container specified as a DNS_LABEL. This name must be unique among "
            "all containers, init containers and ephemeral containers.",
        ),
    )
    command = fields.List(
        fields.String(),
        metadata=doc(
            "Entrypoint array. Not executed within a shell. The image's ENTRYPOINT is used if this is "
            "not provided.",
            list_type="atomic",
        ),
    )
    args = fields.List(
        fields.String(),
        metadata=doc(
            "Arguments to the entrypoint. The image's CMD is used if this is not provided. Variable "
            "references $(VAR_NAME) are expanded using the container's environment.",
            list_type="atomic",
        ),
    )
    ports = fields.List(
        fields.Nested(ContainerPortSchema),
        metadata=doc(
            "Ports are not allowed for ephemeral containers.",
            merge_key="containerPort",
            strategy="merge",
            list_type="map",
            map_keys=["containerPort", "protocol"],
        ),
    )
    resources = fields.Nested(
        ResourceRequirementsSchema,
        metadata=doc(
            "Resources are not allowed for ephemeral containers. Ephemeral containers use spare "
            "resources already allocated to the pod.",
            pointer=False,
        ),
    )
    restartPolicy = fields.String(
        metadata=doc(
            "Restart policy for the container to manage the restart behavior of each container within a"
            " pod. This may only be set for init containers.",
            pointer=True,
        ),
    )
    volumeMounts = fields.List(
        fields.Nested(VolumeMountSchema),
        metadata=doc(
            "Pod volumes to mount into the container's filesystem. Subpath mounts are not allowed for "
            "ephemeral containers. Cannot be updated.",
            merge_key="mountPath",
            strategy="merge",
            list_type="map",
            map_keys=["mountPath"],
        ),
    )
    livenessProbe = fields.Nested(
        ProbeSchema,
        metadata=doc("Probes are not allowed for ephemeral containers."),
    )
    readinessProbe = fields.Nested(
        ProbeSchema,
        metadata=doc("Probes are not allowed for ephemeral containers."),
    )
    startupProbe = fields.Nested(
        ProbeSchema,
        metadata=doc("Probes are not allowed for ephemeral containers."),
    )
    lifecycle = fields.Nested(
        LifecycleSchema,
        metadata=doc("Lifecycle is not allowed for ephemeral containers."),
    )
    securityContext = fields.Nested(
        SecurityContextSchema,
        metadata=doc(
            "Optional: SecurityContext defines the security options the ephemeral container should be "
            "run with.",
        ),
    )
    targetContainerName = fields.String(
        metadata=doc("If set, the name of the container from PodSpec that this ephemeral container targets."),
    )
