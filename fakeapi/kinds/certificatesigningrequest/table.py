"""CertificateSigningRequest Table columns: upstream v1.32 `printCertificateSigningRequest` (NAME, AGE,
SIGNERNAME, REQUESTOR, REQUESTEDDURATION, CONDITION)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age, human_duration
from fakeapi.machinery.types import JSON

# the swagger docs upstream's printer reads (its Requestor column reads the doc of spec.request)
SIGNER_NAME_DOC = (
    'signerName indicates the requested signer, and is a qualified name.\n\nList/watch requests for '
    'CertificateSigningRequests can filter on this field using a "spec.signerName=NAME" fieldSelector.\n\n'
    'Well-known Kubernetes signers are:\n 1. "kubernetes.io/kube-apiserver-client": issues client certificates '
    'that can be used to authenticate to kube-apiserver.\n  Requests for this signer are never auto-approved by '
    'kube-controller-manager, can be issued by the "csrsigning" controller in kube-controller-manager.\n 2. '
    '"kubernetes.io/kube-apiserver-client-kubelet": issues client certificates that kubelets use to authenticate '
    'to kube-apiserver.\n  Requests for this signer can be auto-approved by the "csrapproving" controller in '
    'kube-controller-manager, and can be issued by the "csrsigning" controller in kube-controller-manager.\n 3. '
    '"kubernetes.io/kubelet-serving" issues serving certificates that kubelets use to serve TLS endpoints, which '
    'kube-apiserver can connect to securely.\n  Requests for this signer are never auto-approved by '
    'kube-controller-manager, and can be issued by the "csrsigning" controller in kube-controller-manager.\n\n'
    'More details are available at https://k8s.io/docs/reference/access-authn-authz/certificate-signing-requests/'
    '#kubernetes-signers\n\nCustom signerNames can also be specified. The signer defines:\n 1. Trust distribution: '
    'how trust (CA bundles) are distributed.\n 2. Permitted subjects: and behavior when a disallowed subject is '
    'requested.\n 3. Required, permitted, or forbidden x509 extensions in the request (including whether '
    'subjectAltNames are allowed, which types, restrictions on allowed values) and behavior when a disallowed '
    'extension is requested.\n 4. Required, permitted, or forbidden key usages / extended key usages.\n 5. '
    'Expiration/certificate lifetime: whether it is fixed by the signer, configurable by the admin.\n 6. Whether '
    'or not requests for CA certificates are allowed.'
)
REQUEST_DOC = ('request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. '
               'When serialized as JSON or YAML, the data is additionally base64-encoded.')
EXPIRATION_DOC = (
    'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer '
    'may issue a certificate with a different validity duration so a client must check the delta between the '
    'notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ '
    'in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested '
    'duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI '
    'flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various '
    'reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to '
    'v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose '
    'configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds '
    'is 600, i.e. 10 minutes.'
)
CONDITIONS_DOC = 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".'


def condition(csr: JSON) -> str:
    """extractCSRStatus: Denied, else Approved, else Pending; then ,Failed and ,Issued."""
    status: JSON = csr.get("status") or {}
    kinds = {item.get("type") for item in status.get("conditions") or [] if isinstance(item, dict)}
    text = "Denied" if "Denied" in kinds else "Approved" if "Approved" in kinds else "Pending"
    if "Failed" in kinds:
        text += ",Failed"
    if status.get("certificate"):
        text += ",Issued"
    return text


def _cells(csr: JSON, now: datetime) -> list[Any]:
    meta: JSON = csr.get("metadata") or {}
    spec: JSON = csr.get("spec") or {}
    seconds = spec.get("expirationSeconds")
    return [meta.get("name", ""), age(meta.get("creationTimestamp"), now), spec.get("signerName") or "<none>",
            spec.get("username", ""), human_duration(seconds) if isinstance(seconds, int) else "<none>",
            condition(csr)]


CERTIFICATE_SIGNING_REQUEST_PRINTER = Printer((
    NAME_COLUMN, AGE_COLUMN, Column("SignerName", "string", "", 0, SIGNER_NAME_DOC),
    Column("Requestor", "string", "", 0, REQUEST_DOC), Column("RequestedDuration", "string", "", 0, EXPIRATION_DOC),
    Column("Condition", "string", "", 0, CONDITIONS_DOC),
), _cells)
