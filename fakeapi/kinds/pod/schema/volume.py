"""Pod volumes and their sources; legacy in-tree sources are free-form objects, kept as sent."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.kinds.pod.schema.claim import EphemeralVolumeSourceSchema
from fakeapi.kinds.pod.schema.container import (
    LocalObjectReferenceSchema,
    ObjectFieldSelectorSchema,
    ResourceFieldSelectorSchema,
)
from fakeapi.machinery.schemas.base import FreeForm, Int32, Int64, K8sSchema, Quantity, StringMap, doc
from fakeapi.machinery.schemas.meta import LabelSelectorSchema


class KeyToPathSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.KeyToPath"

    key = fields.String(required=True, metadata=doc("key is the key to project."))
    path = fields.String(
        required=True,
        metadata=doc(
            "path is the relative path of the file to map the key to. May not be an absolute path. May "
            "not contain the path element '..'. May not start with the string '..'.",
        ),
    )
    mode = Int32(
        metadata=doc(
            "mode is Optional: mode bits used to set permissions on this file. Must be an octal value "
            "between 0000 and 0777 or a decimal value between 0 and 511.",
            pointer=True,
        ),
    )


class ConfigMapVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ConfigMapVolumeSource"

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    items = fields.List(
        fields.Nested(KeyToPathSchema),
        metadata=doc(
            "items if unspecified, each key-value pair in the Data field of the referenced ConfigMap "
            "will be projected into the volume as a file whose name is the key and content is the "
            "value.",
            list_type="atomic",
        ),
    )
    defaultMode = Int32(
        metadata=doc(
            "defaultMode is optional: mode bits used to set permissions on created files by default. "
            "Must be an octal value between 0000 and 0777 or a decimal value between 0 and 511.",
            pointer=True,
        ),
    )
    optional = fields.Boolean(
        metadata=doc("optional specify whether the ConfigMap or its keys must be defined", pointer=True),
    )


class CSIVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.CSIVolumeSource"

    driver = fields.String(
        required=True,
        metadata=doc(
            "driver is the name of the CSI driver that handles this volume. Consult with your admin for"
            " the correct name as registered in the cluster.",
        ),
    )
    readOnly = fields.Boolean(
        metadata=doc(
            "readOnly specifies a read-only configuration for the volume. Defaults to false (read/write).",
            pointer=True,
        ),
    )
    fsType = fields.String(
        metadata=doc(
            'fsType to mount. Ex. "ext4", "xfs", "ntfs". If not provided, the empty value is passed to '
            "the associated CSI driver which will determine the default filesystem to apply.",
            pointer=True,
        ),
    )
    volumeAttributes = StringMap(
        metadata=doc(
            "volumeAttributes stores driver-specific properties that are passed to the CSI driver. "
            "Consult your driver's documentation for supported values."
        ),
    )
    nodePublishSecretRef = fields.Nested(
        LocalObjectReferenceSchema,
        metadata=doc(
            "nodePublishSecretRef is a reference to the secret object containing sensitive information "
            "to pass to the CSI driver to complete the CSI NodePublishVolume and NodeUnpublishVolume "
            "calls.",
        ),
    )


class DownwardAPIVolumeFileSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.DownwardAPIVolumeFile"

    path = fields.String(
        required=True,
        metadata=doc(
            "Required: Path is the relative path name of the file to be created. Must not be absolute "
            "or contain the '..' path. Must be utf-8 encoded.",
        ),
    )
    fieldRef = fields.Nested(
        ObjectFieldSelectorSchema,
        metadata=doc(
            "Required: Selects a field of the pod: only annotations, labels, name, namespace and uid "
            "are supported.",
        ),
    )
    resourceFieldRef = fields.Nested(
        ResourceFieldSelectorSchema,
        metadata=doc(
            "Selects a resource of the container: only resources limits and requests are currently supported."
        ),
    )
    mode = Int32(
        metadata=doc(
            "Optional: mode bits used to set permissions on this file, must be an octal value between "
            "0000 and 0777 or a decimal value between 0 and 511.",
            pointer=True,
        ),
    )


class DownwardAPIVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.DownwardAPIVolumeSource"

    items = fields.List(
        fields.Nested(DownwardAPIVolumeFileSchema),
        metadata=doc("Items is a list of downward API volume file", list_type="atomic"),
    )
    defaultMode = Int32(
        metadata=doc(
            "Optional: mode bits to use on created files by default. Must be a Optional: mode bits used"
            " to set permissions on created files by default.",
            pointer=True,
        ),
    )


class EmptyDirVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EmptyDirVolumeSource"

    medium = fields.String(
        metadata=doc(
            "medium represents what type of storage medium should back this directory. The default is "
            '"" which means to use the node\'s default medium.',
        ),
    )
    sizeLimit = Quantity(
        metadata=doc(
            "sizeLimit is the total amount of local storage required for this EmptyDir volume. The size"
            " limit is also applicable for memory medium.",
            pointer=True,
        ),
    )


class HostPathVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.HostPathVolumeSource"

    path = fields.String(
        required=True,
        metadata=doc(
            "path of the directory on the host. If the path is a symlink, it will follow the link to "
            "the real path.",
        ),
    )
    type = fields.String(metadata=doc('type for HostPath Volume Defaults to ""', pointer=True))


class ImageVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ImageVolumeSource"

    reference = fields.String(
        metadata=doc(
            "Required: Image or artifact reference to be used. Behaves in the same way as "
            "pod.spec.containers[*].image."
        ),
    )
    pullPolicy = fields.String(
        metadata=doc(
            "Policy for pulling OCI objects. Possible values are: Always: the kubelet always attempts "
            "to pull the reference. Container creation will fail If the pull fails.",
        ),
    )


class NFSVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NFSVolumeSource"

    server = fields.String(
        required=True,
        metadata=doc("server is the hostname or IP address of the NFS server."),
    )
    path = fields.String(required=True, metadata=doc("path that is exported by the NFS server."))
    readOnly = fields.Boolean(
        metadata=doc(
            "readOnly here will force the NFS export to be mounted with read-only permissions. Defaults"
            " to false.",
        ),
    )


class PersistentVolumeClaimVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource"

    claimName = fields.String(
        required=True,
        metadata=doc(
            "claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using "
            "this volume.",
        ),
    )
    readOnly = fields.Boolean(
        metadata=doc("readOnly Will force the ReadOnly setting in VolumeMounts. Default false."),
    )


class ClusterTrustBundleProjectionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ClusterTrustBundleProjection"

    name = fields.String(
        metadata=doc(
            "Select a single ClusterTrustBundle by object name. Mutually-exclusive with signerName and "
            "labelSelector.",
            pointer=True,
        ),
    )
    signerName = fields.String(
        metadata=doc(
            "Select all ClusterTrustBundles that match this signer name. Mutually-exclusive with name.",
            pointer=True,
        ),
    )
    labelSelector = fields.Nested(
        LabelSelectorSchema,
        metadata=doc(
            "Select all ClusterTrustBundles that match this label selector. Only has effect if "
            "signerName is set."
        ),
    )
    optional = fields.Boolean(
        metadata=doc(
            "If true, don't block pod startup if the referenced ClusterTrustBundle(s) aren't available."
            " If using name, then the named ClusterTrustBundle is allowed not to exist.",
            pointer=True,
        ),
    )
    path = fields.String(
        required=True,
        metadata=doc("Relative path from the volume root to write the bundle."),
    )


class ConfigMapProjectionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ConfigMapProjection"

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    items = fields.List(
        fields.Nested(KeyToPathSchema),
        metadata=doc(
            "items if unspecified, each key-value pair in the Data field of the referenced ConfigMap "
            "will be projected into the volume as a file whose name is the key and content is the "
            "value.",
            list_type="atomic",
        ),
    )
    optional = fields.Boolean(
        metadata=doc("optional specify whether the ConfigMap or its keys must be defined", pointer=True),
    )


class DownwardAPIProjectionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.DownwardAPIProjection"

    items = fields.List(
        fields.Nested(DownwardAPIVolumeFileSchema),
        metadata=doc("Items is a list of DownwardAPIVolume file", list_type="atomic"),
    )


class SecretProjectionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SecretProjection"

    name = fields.String(
        metadata=doc(
            "Name of the referent. This field is effectively required, but due to backwards "
            "compatibility is allowed to be empty."
        ),
    )
    items = fields.List(
        fields.Nested(KeyToPathSchema),
        metadata=doc(
            "items if unspecified, each key-value pair in the Data field of the referenced Secret will "
            "be projected into the volume as a file whose name is the key and content is the value.",
            list_type="atomic",
        ),
    )
    optional = fields.Boolean(
        metadata=doc("optional field specify whether the Secret or its key must be defined", pointer=True),
    )


class ServiceAccountTokenProjectionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ServiceAccountTokenProjection"

    audience = fields.String(metadata=doc("audience is the intended audience of the token."))
    expirationSeconds = Int64(
        metadata=doc(
            "expirationSeconds is the requested duration of validity of the service account token.",
            pointer=True,
        ),
    )
    path = fields.String(
        required=True,
        metadata=doc("path is the path relative to the mount point of the file to project the token into."),
    )


class VolumeProjectionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.VolumeProjection"

    secret = fields.Nested(
        SecretProjectionSchema,
        metadata=doc("secret information about the secret data to project."),
    )
    downwardAPI = fields.Nested(
        DownwardAPIProjectionSchema,
        metadata=doc("downwardAPI information about the downwardAPI data to project."),
    )
    configMap = fields.Nested(
        ConfigMapProjectionSchema,
        metadata=doc("configMap information about the configMap data to project."),
    )
    serviceAccountToken = fields.Nested(
        ServiceAccountTokenProjectionSchema,
        metadata=doc("serviceAccountToken is information about the serviceAccountToken data to project."),
    )
    clusterTrustBundle = fields.Nested(
        ClusterTrustBundleProjectionSchema,
        metadata=doc(
            "ClusterTrustBundle allows a pod to access the `.spec.trustBundle` field of "
            "ClusterTrustBundle objects in an auto-updating file."
        ),
    )


class ProjectedVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ProjectedVolumeSource"

    sources = fields.List(
        fields.Nested(VolumeProjectionSchema),
        metadata=doc(
            "sources is the list of volume projections. Each entry in this list handles one source.",
            list_type="atomic",
            omitempty=False,
        ),
    )
    defaultMode = Int32(
        metadata=doc(
            "defaultMode are the mode bits used to set permissions on created files by default. Must be"
            " an octal value between 0000 and 0777 or a decimal value between 0 and 511.",
            pointer=True,
        ),
    )


class SecretVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.SecretVolumeSource"

    secretName = fields.String(
        metadata=doc("secretName is the name of the secret in the pod's namespace to use."),
    )
    items = fields.List(
        fields.Nested(KeyToPathSchema),
        metadata=doc(
            "items If unspecified, each key-value pair in the Data field of the referenced Secret will "
            "be projected into the volume as a file whose name is the key and content is the value.",
            list_type="atomic",
        ),
    )
    defaultMode = Int32(
        metadata=doc(
            "defaultMode is Optional: mode bits used to set permissions on created files by default. "
            "Must be an octal value between 0000 and 0777 or a decimal value between 0 and 511.",
            pointer=True,
        ),
    )
    optional = fields.Boolean(
        metadata=doc("optional field specify whether the Secret or its keys must be defined", pointer=True),
    )


class VolumeSchema(K8sSchema):
    """A named volume in a pod that may be accessed by any container in the pod."""

    openapi_name = "io.k8s.api.core.v1.Volume"

    name = fields.String(
        required=True,
        metadata=doc("name of the volume. Must be a DNS_LABEL and unique within the pod."),
    )
    hostPath = fields.Nested(
        HostPathVolumeSourceSchema,
        metadata=doc(
            "hostPath represents a pre-existing file or directory on the host machine that is directly "
            "exposed to the container.",
        ),
    )
    emptyDir = fields.Nested(
        EmptyDirVolumeSourceSchema,
        metadata=doc("emptyDir represents a temporary directory that shares a pod's lifetime."),
    )
    gcePersistentDisk = FreeForm(
        metadata=doc(
            "gcePersistentDisk represents a GCE Disk resource that is attached to a kubelet's host "
            "machine and then exposed to the pod. Deprecated.",
            pointer=True,
        ),
    )
    awsElasticBlockStore = FreeForm(
        metadata=doc(
            "awsElasticBlockStore represents an AWS Disk resource that is attached to a kubelet's host "
            "machine and then exposed to the pod. Deprecated.",
            pointer=True,
        ),
    )
    gitRepo = FreeForm(
        metadata=doc("gitRepo represents a git repository at a particular revision. Deprecated.", pointer=True),
    )
    secret = fields.Nested(
        SecretVolumeSourceSchema,
        metadata=doc("secret represents a secret that should populate this volume."),
    )
    nfs = fields.Nested(
        NFSVolumeSourceSchema,
        metadata=doc("nfs represents an NFS mount on the host that shares a pod's lifetime."),
    )
    iscsi = FreeForm(
        metadata=doc(
            "iscsi represents an ISCSI Disk resource that is attached to a kubelet's host machine and "
            "then exposed to the pod.",
            pointer=True,
        ),
    )
    glusterfs = FreeForm(
        metadata=doc(
            "glusterfs represents a Glusterfs mount on the host that shares a pod's lifetime. Deprecated.",
            pointer=True,
        ),
    )
    persistentVolumeClaim = fields.Nested(
        PersistentVolumeClaimVolumeSourceSchema,
        metadata=doc(
            "persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the"
            " same namespace.",
        ),
    )
    rbd = FreeForm(
        metadata=doc(
            "rbd represents a Rados Block Device mount on the host that shares a pod's lifetime. Deprecated.",
            pointer=True,
        ),
    )
    flexVolume = FreeForm(
        metadata=doc(
            "flexVolume represents a generic volume resource that is provisioned/attached using an exec"
            " based plugin. Deprecated.",
            pointer=True,
        ),
    )
    cinder = FreeForm(
        metadata=doc(
            "cinder represents a cinder volume attached and mounted on kubelets host machine. Deprecated.",
            pointer=True,
        ),
    )
    cephfs = FreeForm(
        metadata=doc(
            "cephFS represents a Ceph FS mount on the host that shares a pod's lifetime. Deprecated.",
            pointer=True,
        ),
    )
    flocker = FreeForm(
        metadata=doc(
            "flocker represents a Flocker volume attached to a kubelet's host machine. Deprecated.",
            pointer=True,
        ),
    )
    downwardAPI = fields.Nested(
        DownwardAPIVolumeSourceSchema,
        metadata=doc("downwardAPI represents downward API about the pod that should populate this volume."),
    )
    fc = FreeForm(
        metadata=doc(
            "fc represents a Fibre Channel resource that is attached to a kubelet's host machine and "
            "then exposed to the pod.",
            pointer=True,
        ),
    )
    azureFile = FreeForm(
        metadata=doc(
            "azureFile represents an Azure File Service mount on the host and bind mount to the pod. "
            "Deprecated.",
            pointer=True,
        ),
    )
    configMap = fields.Nested(
        ConfigMapVolumeSourceSchema,
        metadata=doc("configMap represents a configMap that should populate this volume."),
    )
    vsphereVolume = FreeForm(
        metadata=doc(
            "vsphereVolume represents a vSphere volume attached and mounted on kubelets host machine. "
            "Deprecated.",
            pointer=True,
        ),
    )
    quobyte = FreeForm(
        metadata=doc(
            "quobyte represents a Quobyte mount on the host that shares a pod's lifetime. Deprecated.",
            pointer=True,
        ),
    )
    azureDisk = FreeForm(
        metadata=doc(
            "azureDisk represents an Azure Data Disk mount on the host and bind mount to the pod. Deprecated.",
            pointer=True,
        ),
    )
    photonPersistentDisk = FreeForm(
        metadata=doc(
            "photonPersistentDisk represents a PhotonController persistent disk attached and mounted on"
            " kubelets host machine. Deprecated.",
            pointer=True,
        ),
    )
    projected = fields.Nested(
        ProjectedVolumeSourceSchema,
        metadata=doc("projected items for all in one resources secrets, configmaps, and downward API."),
    )
    portworxVolume = FreeForm(
        metadata=doc(
            "portworxVolume represents a portworx volume attached and mounted on kubelets host machine."
            " Deprecated.",
            pointer=True,
        ),
    )
    scaleIO = FreeForm(
        metadata=doc(
            "scaleIO represents a ScaleIO persistent volume attached and mounted on Kubernetes nodes. "
            "Deprecated.",
            pointer=True,
        ),
    )
    storageos = FreeForm(
        metadata=doc(
            "storageOS represents a StorageOS volume attached and mounted on Kubernetes nodes. Deprecated.",
            pointer=True,
        ),
    )
    csi = fields.Nested(
        CSIVolumeSourceSchema,
        metadata=doc(
            "csi (Container Storage Interface) represents ephemeral storage that is handled by certain "
            "external CSI drivers.",
        ),
    )
    ephemeral = fields.Nested(
        EphemeralVolumeSourceSchema,
        metadata=doc(
            "ephemeral represents a volume that is handled by a cluster storage driver. The volume's "
            "lifecycle is tied to the pod that defines it.",
        ),
    )
    image = fields.Nested(
        ImageVolumeSourceSchema,
        metadata=doc(
            "image represents an OCI object (a container image or artifact) pulled and mounted on the "
            "kubelet's host machine.",
        ),
    )
