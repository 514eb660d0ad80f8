"""certificates.k8s.io/v1 CertificateSigningRequest: strategies (the request, /status, /approval),
validation, the spec.signerName field selector and Table columns; fakeapi.controllers.csrsigning issues the
certificates of approved kube-apiserver-client requests."""

from __future__ import annotations

from fakeapi.kinds.certificatesigningrequest.strategy import (
    CertificateSigningRequestApprovalStrategy,
    CertificateSigningRequestStatusStrategy,
    CertificateSigningRequestStrategy,
)
from fakeapi.kinds.certificatesigningrequest.table import CERTIFICATE_SIGNING_REQUEST_PRINTER
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels, metadata_fields
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_str

CERTIFICATES_GROUP = "certificates.k8s.io"


def _fields(csr: JSON) -> dict[str, str]:
    return {**metadata_fields(csr), "spec.signerName": as_str(as_dict(csr.get("spec")).get("signerName"))}


CERTIFICATE_SIGNING_REQUEST = Kind(
    ResourceInfo(
        "certificatesigningrequests", "CertificateSigningRequest", namespaced=False,
        singular="certificatesigningrequest", short_names=("csr",), group=CERTIFICATES_GROUP,
        subresources=(SubresourceInfo("approval", "CertificateSigningRequest", STATUS_VERBS),
                      SubresourceInfo("status", "CertificateSigningRequest", STATUS_VERBS)),
        definition="io.k8s.api.certificates.v1.CertificateSigningRequest",
    ),
    CertificateSigningRequestStrategy(),
    {"status": CertificateSigningRequestStatusStrategy(), "approval": CertificateSigningRequestApprovalStrategy()},
    CERTIFICATE_SIGNING_REQUEST_PRINTER,
    FieldLabels(_fields, exposed_labels(_fields)),
)
