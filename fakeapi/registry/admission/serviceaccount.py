"""ServiceAccount (upstream plugin/pkg/admission/serviceaccount): every pod runs as a service account that
exists, and gets that account's API credentials mounted unless it or its account says not to.

On create (never on update) a pod without `serviceAccountName` gets `default`; a pod naming an account its
namespace does not have is refused; unless automounting is off, a projected volume `kube-api-access-<5
random characters>` (a bound token, the cluster's CA bundle and the namespace) is added and mounted read-only
at /var/run/secrets/kubernetes.io/serviceaccount in every init container and container that has nothing
mounted there; a pod without image pull secrets gets its account's. Mirror pods (made by the kubelet from
static manifests) are never changed, and may reference no service account and no secret.
"""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.errors import Forbidden
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import CREATE, Attributes, ObjectReader

NAME = "ServiceAccount"
DEFAULT_SERVICE_ACCOUNT = "default"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"
TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"
# upstream's WarnOnlyBoundTokenExpirationSeconds: an hour and 7 seconds, a length the token issuer recognises
TOKEN_EXPIRATION_SECONDS = 3607
PROJECTED_DEFAULT_MODE = 0o644
_GO_TRUE = frozenset(("1", "t", "T", "TRUE", "true", "True"))  # what Go's strconv.ParseBool reads as true


class ServiceAccount:
    def __init__(self, objects: ObjectReader) -> None:
        self.objects = objects

    def admit(self, attributes: Attributes) -> None:
        if attributes.operation != CREATE or not attributes.is_pod() or attributes.obj is None:
            return
        pod = attributes.obj
        spec = pod.get("spec")
        if not isinstance(spec, dict):
            return
        annotations = (pod.get("metadata") or {}).get("annotations") or {}
        if MIRROR_POD_ANNOTATION in annotations:
            _check_mirror_pod(attributes, spec)
            return
        if not spec.get("serviceAccountName"):
            # the deprecated serviceAccount mirrors serviceAccountName on the wire, as conversion writes it
            spec["serviceAccountName"] = spec["serviceAccount"] = DEFAULT_SERVICE_ACCOUNT
        account = self._service_account(attributes, str(spec["serviceAccountName"]))
        if _automount(spec, account):
            self._mount_token(spec)
        if not spec.get("imagePullSecrets") and account.get("imagePullSecrets"):
            spec["imagePullSecrets"] = [{"name": (ref or {}).get("name", "")} for ref in account["imagePullSecrets"]]
        account_annotations = (account.get("metadata") or {}).get("annotations") or {}
        if account_annotations.get(ENFORCE_MOUNTABLE_SECRETS) in _GO_TRUE:
            _limit_secret_references(attributes, spec, account)

    def _service_account(self, attributes: Attributes, name: str) -> JSON:
        account = self.objects.find("serviceaccounts", attributes.namespace, name)
        if account is None:
            raise Forbidden.for_object(
                "pods", attributes.name,
                f'error looking up service account {attributes.namespace}/{name}: serviceaccount "{name}" not found')
        return account

    def _mount_token(self, spec: JSON) -> None:
        """Mount the token volume (the pod's own kube-api-access-* volume if it has one) wherever nothing is
        mounted at the token path yet; add the volume if some container needed it."""
        volumes = spec.get("volumes") or []
        existing = next((str(volume["name"]) for volume in volumes
                         if str(volume.get("name", "")).startswith(TOKEN_VOLUME_PREFIX)), None)
        name = existing or TOKEN_VOLUME_PREFIX + self.objects.ids.suffix()
        needed = False
        for group in ("initContainers", "containers"):
            for container in spec.get(group) or []:
                mounts = container.get("volumeMounts") or []
                if any(mount.get("mountPath") == TOKEN_MOUNT_PATH for mount in mounts):
                    continue
                container["volumeMounts"] = [*mounts, {"name": name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH}]
                needed = True
        if needed and existing is None:
            spec["volumes"] = [*volumes, {"name": name, "projected": token_volume_source()}]


def token_volume_source() -> JSON:
    """Upstream's TokenVolumeSource: token, CA bundle and namespace, in that order (defaultMode set
    explicitly: admission runs after defaulting)."""
    return {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
            {"configMap": {"name": ROOT_CA_CONFIG_MAP, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [
                {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
        ],
        "defaultMode": PROJECTED_DEFAULT_MODE,
    }


def _automount(spec: JSON, account: JSON) -> bool:
    """The pod's automountServiceAccountToken wins, then the account's; both unset means yes."""
    for setting in (spec.get("automountServiceAccountToken"), account.get("automountServiceAccountToken")):
        if setting is not None:
            return bool(setting)
    return True


def _check_mirror_pod(attributes: Attributes, spec: JSON) -> None:
    def forbid(why: str) -> None:
        raise Forbidden.for_object("pods", attributes.name, why)

    if spec.get("serviceAccountName"):
        forbid("a mirror pod may not reference service accounts")
    if _references_secrets(spec):
        forbid("a mirror pod may not reference secrets")
    for volume in spec.get("volumes") or []:
        for source in (volume.get("projected") or {}).get("sources") or []:
            if source.get("serviceAccountToken") is not None:
                forbid("a mirror pod may not use ServiceAccountToken volume projections")


# volume sources that name a secret in a `secretRef` (upstream's VisitPodSecretNames)
_SECRET_REF_SOURCES = ("cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos")


def _references_secrets(spec: JSON) -> bool:
    """Whether the pod names any secret: pull secrets, env and envFrom of any container, or a volume."""
    if spec.get("imagePullSecrets"):
        return True
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(group) or []:
            if any(source.get("secretRef") is not None for source in container.get("envFrom") or []):
                return True
            if any(_secret_key_ref(variable) is not None for variable in container.get("env") or []):
                return True
    for volume in spec.get("volumes") or []:
        if volume.get("secret") is not None or (volume.get("azureFile") or {}).get("secretName"):
            return True
        if any((volume.get(source) or {}).get("secretRef") is not None for source in _SECRET_REF_SOURCES):
            return True
        if (volume.get("csi") or {}).get("nodePublishSecretRef") is not None:
            return True
        if any(source.get("secret") is not None for source in (volume.get("projected") or {}).get("sources") or []):
            return True
    return False


def _secret_key_ref(variable: JSON) -> Any:
    return (variable.get("valueFrom") or {}).get("secretKeyRef")


def _limit_secret_references(attributes: Attributes, spec: JSON, account: JSON) -> None:
    """The deprecated kubernetes.io/enforce-mountable-secrets: the pod may use only the secrets its account
    lists (volumes, env, envFrom) and only its account's image pull secrets."""
    account_name = (account.get("metadata") or {}).get("name", "")
    mountable = {(ref or {}).get("name", "") for ref in account.get("secrets") or []}
    not_referenced = f"is not allowed because service account {account_name} does not reference that secret"

    def forbid(why: str) -> None:
        raise Forbidden.for_object("pods", attributes.name, why)

    for volume in spec.get("volumes") or []:
        secret = volume.get("secret")
        if secret is not None and secret.get("secretName", "") not in mountable:
            forbid(f'volume with secret.secretName="{secret.get("secretName", "")}" {not_referenced}')
    for group, label in (("initContainers", "init container"), ("containers", "container")):
        for container in spec.get(group) or []:
            for variable in container.get("env") or []:
                ref = _secret_key_ref(variable)
                if ref is not None and ref.get("name", "") not in mountable:
                    forbid(f'{label} {container.get("name", "")} with envVar {variable.get("name", "")} '
                           f'referencing secret.secretName="{ref.get("name", "")}" {not_referenced}')
            for source in container.get("envFrom") or []:
                ref = source.get("secretRef")
                if ref is not None and ref.get("name", "") not in mountable:
                    forbid(f'{label} {container.get("name", "")} with envFrom referencing '
                           f'secret.secretName="{ref.get("name", "")}" {not_referenced}')
    pull_secrets = {(ref or {}).get("name", "") for ref in account.get("imagePullSecrets") or []}
    for index, ref in enumerate(spec.get("imagePullSecrets") or []):
        if (ref or {}).get("name", "") not in pull_secrets:
            forbid(f'imagePullSecrets[{index}].name="{(ref or {}).get("name", "")}" is not allowed because service '
                   f"account {account_name} does not reference that imagePullSecret")
