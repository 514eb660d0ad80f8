"""Pod-level and container-level security contexts."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import Int64, K8sSchema, doc


class CapabilitiesSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Capabilities"

    add = fields.List(fields.String(), metadata=doc("Added capabilities", list_type="atomic"))
    drop = fields.List(fields.String(), metadata=doc("Removed capabilities", list_type="atomic"))


class SELinuxOptionsSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SELinuxOptions"

    user = fields.String(metadata=doc("User is a SELinux user label that applies to the container."))
    role = fields.String(metadata=doc("Role is a SELinux role label that applies to the container."))
    type = fields.String(metadata=doc("Type is a SELinux type label that applies to the container."))
    level = fields.String(metadata=doc("Level is SELinux level label that applies to the container."))


class WindowsSecurityContextOptionsSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.WindowsSecurityContextOptions"

    gmsaCredentialSpecName = fields.String(
        metadata=doc("GMSACredentialSpecName is the name of the GMSA credential spec to use.", pointer=True),
    )
    gmsaCredentialSpec = fields.String(
        metadata=doc(
            "GMSACredentialSpec is where the GMSA admission webhook "
            "(https://github.com/kubernetes-sigs/windows-gmsa) inlines the contents of the GMSA "
            "credential spec named by the GMSACredentialSpecName field.",
            pointer=True,
        ),
    )
    runAsUserName = fields.String(
        metadata=doc(
            "The UserName in Windows to run the entrypoint of the container process. Defaults to the "
            "user specified in image metadata if unspecified.",
            pointer=True,
        ),
    )
    hostProcess = fields.Boolean(
        metadata=doc(
            "HostProcess determines if a container should be run as a 'Host Process' container.",
            pointer=True,
        ),
    )


class SeccompProfileSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SeccompProfile"

    type = fields.String(
        required=True,
        metadata=doc(
            "type indicates which kind of seccomp profile will be applied. Valid options are: Localhost"
            " - a profile defined in a file on the node should be used.",
        ),
    )
    localhostProfile = fields.String(
        metadata=doc(
            "localhostProfile indicates a profile defined in a file on the node should be used. The "
            "profile must be preconfigured on the node to work.",
            pointer=True,
        ),
    )


class AppArmorProfileSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.AppArmorProfile"

    type = fields.String(
        required=True,
        metadata=doc(
            "type indicates which kind of AppArmor profile will be applied. Valid options are: "
            "Localhost - a profile pre-loaded on the node."
        ),
    )
    localhostProfile = fields.String(
        metadata=doc(
            "localhostProfile indicates a profile loaded on the node that should be used. The profile "
            "must be preconfigured on the node to work.",
            pointer=True,
        ),
    )


class SecurityContextSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SecurityContext"

    capabilities = fields.Nested(
        CapabilitiesSchema,
        metadata=doc(
            "The capabilities to add/drop when running containers. Note that this field cannot be set "
            "when spec.os.name is windows.",
        ),
    )
    privileged = fields.Boolean(
        metadata=doc(
            "Run container in privileged mode. Processes in privileged containers are essentially "
            "equivalent to root on the host. Defaults to false.",
            pointer=True,
        ),
    )
    seLinuxOptions = fields.Nested(
        SELinuxOptionsSchema,
        metadata=doc(
            "The SELinux context to be applied to the container. Note that this field cannot be set "
            "when spec.os.name is windows."
        ),
    )
    windowsOptions = fields.Nested(
        WindowsSecurityContextOptionsSchema,
        metadata=doc(
            "The Windows specific settings applied to all containers. Note that this field cannot be "
            "set when spec.os.name is linux.",
        ),
    )
    runAsUser = Int64(
        metadata=doc(
            "The UID to run the entrypoint of the container process. Defaults to user specified in "
            "image metadata if unspecified. May also be set in PodSecurityContext.",
            pointer=True,
        ),
    )
    runAsGroup = Int64(
        metadata=doc(
            "The GID to run the entrypoint of the container process. Uses runtime default if unset. May"
            " also be set in PodSecurityContext.",
            pointer=True,
        ),
    )
    runAsNonRoot = fields.Boolean(
        metadata=doc("Indicates that the container must run as a non-root user.", pointer=True),
    )
    readOnlyRootFilesystem = fields.Boolean(
        metadata=doc(
            "Whether this container has a read-only root filesystem. Default is false. Note that this "
            "field cannot be set when spec.os.name is windows.",
            pointer=True,
        ),
    )
    allowPrivilegeEscalation = fields.Boolean(
        metadata=doc(
            "AllowPrivilegeEscalation controls whether a process can gain more privileges than its "
            "parent process.",
            pointer=True,
        ),
    )
    procMount = fields.String(
        metadata=doc("procMount denotes the type of proc mount to use for the containers.", pointer=True),
    )
    seccompProfile = fields.Nested(
        SeccompProfileSchema,
        metadata=doc(
            "The seccomp options to use by this container. Note that this field cannot be set when "
            "spec.os.name is windows."
        ),
    )
    appArmorProfile = fields.Nested(
        AppArmorProfileSchema,
        metadata=doc(
            "appArmorProfile is the AppArmor options to use by this container. Note that this field "
            "cannot be set when spec.os.name is windows."
        ),
    )


class SysctlSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.Sysctl"

    name = fields.String(required=True, metadata=doc("Name of a property to set"))
    value = fields.String(required=True, metadata=doc("Value of a property to set"))


class PodSecurityContextSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PodSecurityContext"

    seLinuxOptions = fields.Nested(
        SELinuxOptionsSchema,
        metadata=doc(
            "The SELinux context to be applied to all containers. Note that this field cannot be set "
            "when spec.os.name is windows.",
        ),
    )
    windowsOptions = fields.Nested(
        WindowsSecurityContextOptionsSchema,
        metadata=doc(
            "The Windows specific settings applied to all containers. Note that this field cannot be "
            "set when spec.os.name is linux.",
        ),
    )
    runAsUser = Int64(
        metadata=doc(
            "The UID to run the entrypoint of the container process. Defaults to user specified in "
            "image metadata if unspecified. May also be set in SecurityContext.",
            pointer=True,
        ),
    )
    runAsGroup = Int64(
        metadata=doc(
            "The GID to run the entrypoint of the container process. Uses runtime default if unset. May"
            " also be set in SecurityContext.",
            pointer=True,
        ),
    )
    runAsNonRoot = fields.Boolean(
        metadata=doc("Indicates that the container must run as a non-root user.", pointer=True),
    )
    supplementalGroups = fields.List(
        Int64(),
        metadata=doc(
            "A list of groups applied to the first process run in each container, in addition to the "
            "container's primary GID and fsGroup (if specified).",
            list_type="atomic",
        ),
    )
    supplementalGroupsPolicy = fields.String(
        metadata=doc(
            "Defines how supplemental groups of the first container processes are calculated. Valid "
            'values are "Merge" and "Strict". If not specified, "Merge" is used.',
            pointer=True,
        ),
    )
    fsGroup = Int64(metadata=doc("A special supplemental group that applies to all containers in a pod.", pointer=True))
    sysctls = fields.List(
        fields.Nested(SysctlSchema),
        metadata=doc(
            "Sysctls hold a list of namespaced sysctls used for the pod. Pods with unsupported sysctls "
            "(by the container runtime) might fail to launch.",
            list_type="atomic",
        ),
    )
    fsGroupChangePolicy = fields.String(
        metadata=doc(
            "fsGroupChangePolicy defines behavior of changing ownership and permission of the volume "
            "before being exposed inside Pod.",
            pointer=True,
        ),
    )
    seccompProfile = fields.Nested(
        SeccompProfileSchema,
        metadata=doc(
            "The seccomp options to use by the containers in this pod. Note that this field cannot be "
            "set when spec.os.name is windows.",
        ),
    )
    appArmorProfile = fields.Nested(
        AppArmorProfileSchema,
        metadata=doc(
            "appArmorProfile is the AppArmor options to use by the containers in this pod. Note that "
            "this field cannot be set when spec.os.name is windows.",
        ),
    )
    seLinuxChangePolicy = fields.String(
        metadata=doc(
            "seLinuxChangePolicy defines how the container's SELinux label is applied to all volumes "
            "used by the Pod.",
            pointer=True,
        ),
    )
