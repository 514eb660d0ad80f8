"""CertificateSigningRequest validation (upstream pkg/apis/certificates/validation, v1.32): the request must
be a signed PEM `CERTIFICATE REQUEST`, usages known and unique, signerName a domain and a path, at least 600
seconds asked for, conditions well-formed, a certificate PEM CERTIFICATE blocks; on update, the conditions
each endpoint may set (approval: Approved/Denied; status: the certificate)."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from fakeapi.machinery.fielderrors import (
    FieldError,
    GoSyntax,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
)
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.names import (
    DNS1123_LABEL_MAX,
    DNS1123_SUBDOMAIN_MAX,
    is_dns1123_label,
    is_dns1123_subdomain,
)
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update

APPROVED, DENIED, FAILED = "Approved", "Denied", "Failed"
LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown"
USAGES = sorted(("signing", "digital signature", "content commitment", "key encipherment", "key agreement",
                 "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any",
                 "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system",
                 "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"))
ALL_STATUSES = ["False", "True", "Unknown"]
EXCLUSIVE = "Approved and Denied conditions are mutually exclusive"
_PEM_BLOCK = re.compile(rb"-----BEGIN ([^-\r\n]*)-----\r?\n(.*?)-----END \1-----", re.DOTALL)


def request_bytes(csr: JSON) -> bytes:
    """spec.request decoded (the decoder checked its base64)."""
    try:
        return base64.b64decode((csr.get("spec") or {}).get("request") or "")
    except (binascii.Error, ValueError):
        return b""


def validate_csr(csr: JSON, old: JSON | None = None, *, approval: bool = False,
                 certificate: bool = False) -> list[FieldError]:
    """validateCertificateSigningRequest with the options of a create (old None), an update, an /approval
    update (`approval`) or a /status update (`certificate`)."""
    errors = validate_object_meta(csr.get("metadata") or {}, False, "metadata", lambda name, prefix: [])
    spec: JSON = csr.get("spec") or {}
    old_spec: JSON = (old or {}).get("spec") or {}
    why = request_problem(request_bytes(csr))
    if why:
        errors.append(invalid("spec.request", GoSyntax.of_bytes(request_bytes(csr)), why))
    usages = list(spec.get("usages") or [])
    if not usages:
        errors.append(required("spec.usages", "usages must be provided"))
    old_usages = list(old_spec.get("usages") or [])
    if not any(usage not in USAGES for usage in old_usages):
        errors.extend(not_supported(f"spec.usages[{index}]", usage, USAGES)
                      for index, usage in enumerate(usages) if usage not in USAGES)
    if len(set(old_usages)) == len(old_usages):
        errors.extend(duplicate(f"spec.usages[{index}]", usage)
                      for index, usage in enumerate(usages) if usage in usages[:index])
    signer = str(spec.get("signerName") or "")
    if signer == LEGACY_UNKNOWN_SIGNER and old_spec.get("signerName") != LEGACY_UNKNOWN_SIGNER:
        errors.append(invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"))
    else:
        errors.extend(validate_signer_name("spec.signerName", signer))
    seconds = spec.get("expirationSeconds")
    if isinstance(seconds, int) and seconds < 600:
        errors.append(invalid("spec.expirationSeconds", seconds,
                              "may not specify a duration less than 600 seconds (10 minutes)"))
    errors.extend(_validate_conditions(csr, old))
    status: JSON = csr.get("status") or {}
    old_status: JSON = (old or {}).get("status") or {}
    certificate_pem = _decoded(status.get("certificate"))
    arbitrary = old is not None and (status.get("certificate") == old_status.get("certificate")
                                     or certificate_problem(_decoded(old_status.get("certificate"))))
    if not arbitrary:
        why = certificate_problem(certificate_pem)
        if why:
            errors.append(invalid("status.certificate", "<certificate data>", why))
    if old is not None:
        errors.extend(_validate_update(csr, old, approval, certificate))
    return errors


def request_problem(pem: bytes) -> str:
    """Why spec.request is no signed PEM CERTIFICATE REQUEST ("" when it is one)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    match = _PEM_BLOCK.search(pem)
    if match is None or match.group(1) != b"CERTIFICATE REQUEST":
        return "PEM block type must be CERTIFICATE REQUEST"
    try:
        request = x509.load_pem_x509_csr(match.group(0))
        request.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    except (ValueError, TypeError):
        return "asn1: structure error: the block holds no certificate request"
    if not request.is_signature_valid:
        from cryptography.hazmat.primitives.asymmetric import ec

        elliptic = isinstance(request.public_key(), ec.EllipticCurvePublicKey)
        return "x509: ECDSA verification failure" if elliptic else "crypto/rsa: verification error"
    return ""


def certificate_problem(pem: bytes) -> str:
    """utilcert's check of status.certificate: PEM CERTIFICATE blocks only ("" when fine, or empty)."""
    from cryptography import x509

    if not pem:
        return ""
    blocks = 0
    for match in _PEM_BLOCK.finditer(pem):
        kind, body = match.group(1), match.group(2)
        if kind != b"CERTIFICATE":
            return f'only CERTIFICATE PEM blocks are allowed, found "{kind.decode(errors="replace")}"'
        if b":" in body.split(b"\n\n", 1)[0] and b"\n\n" in body:
            return "no PEM block headers are permitted"
        try:
            x509.load_pem_x509_certificate(match.group(0))
        except ValueError:
            return "x509: malformed certificate"
        blocks += 1
    return "" if blocks else "must contain at least one CERTIFICATE PEM block"


def validate_signer_name(field: str, signer: str) -> list[FieldError]:
    """ValidateCertificateSigningRequestSignerName: `example.com/signer-name`, at most 571 characters."""
    if not signer:
        return [required(field, "signerName must be provided")]
    segments = signer.split("/")
    if len(segments) != 2:
        return [invalid(field, signer, "must be a fully qualified domain and path of the form "
                                       "'example.com/signer-name'")]
    domain, path = segments
    errors: list[FieldError] = []
    if len(domain) > DNS1123_SUBDOMAIN_MAX:
        errors.append(too_long(field, DNS1123_SUBDOMAIN_MAX))
    labels = domain.split(".")
    for label in labels:
        problems = is_dns1123_label(label)
        if problems:
            errors.extend(invalid(field, domain, f'validating label "{label}": {problem}') for problem in problems)
            break
    if len(labels) < 2:
        errors.append(invalid(field, domain, "should be a domain with at least two segments separated by dots"))
    for label in path.split("."):
        problems = is_dns1123_subdomain(label)
        if problems:
            errors.extend(invalid(field, path, f'validating label "{label}": {problem}') for problem in problems)
            break
    maximum = DNS1123_SUBDOMAIN_MAX + (DNS1123_SUBDOMAIN_MAX + DNS1123_LABEL_MAX + 1) + 1
    if len(signer) > maximum:
        errors.append(too_long(field, maximum))
    return errors


def _validate_conditions(csr: JSON, old: JSON | None) -> list[FieldError]:
    conditions = _conditions(csr)
    old_conditions = _conditions(old or {})
    old_types = [condition.get("type") for condition in old_conditions]
    allow_both = APPROVED in old_types and DENIED in old_types
    allow_duplicates = len(set(old_types)) != len(old_types)
    allow_empty = "" in old_types or None in old_types
    errors: list[FieldError] = []
    seen: set[Any] = set()
    approved = denied = False
    for index, condition in enumerate(conditions):
        path = f"status.conditions[{index}]"
        kind, status = condition.get("type") or "", condition.get("status") or ""
        if not allow_empty and not kind:
            errors.append(required(f"{path}.type"))
        allowed = ["True"] if kind in (APPROVED, DENIED, FAILED) else ALL_STATUSES
        if not status:
            errors.append(required(f"{path}.status"))
        elif status not in allowed:
            errors.append(not_supported(f"{path}.status", status, allowed))
        if not allow_both and kind in (APPROVED, DENIED):
            if (kind == APPROVED and denied) or (kind == DENIED and approved):
                errors.append(invalid(f"{path}.type", kind, EXCLUSIVE))
            approved, denied = approved or kind == APPROVED, denied or kind == DENIED
        if not allow_duplicates:
            if kind in seen:
                errors.append(duplicate(f"{path}.type", kind))
            seen.add(kind)
    return errors


def _validate_update(new: JSON, old: JSON, approval: bool, certificate: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for kind in (APPROVED, DENIED, FAILED):
        if len(_of_type(new, kind)) < len(_of_type(old, kind)):
            errors.append(forbidden("status.conditions", f'updates may not remove a condition of type "{kind}"'))
    if not approval:
        for kind in (APPROVED, DENIED):
            new_conditions, old_conditions = _of_type(new, kind), _of_type(old, kind)
            if len(new_conditions) > len(old_conditions):
                errors.append(forbidden("status.conditions", f'updates may not add a condition of type "{kind}"'))
            elif len(new_conditions) == len(old_conditions) and new_conditions != old_conditions:
                errors.append(forbidden("status.conditions", f'updates may not modify a condition of type "{kind}"'))
    new_certificate = (new.get("status") or {}).get("certificate") or ""
    old_certificate = (old.get("status") or {}).get("certificate") or ""
    if new_certificate != old_certificate:
        if not certificate:
            errors.append(forbidden("status.certificate", "updates may not set certificate content"))
        elif old_certificate:
            errors.append(forbidden("status.certificate", "updates may not modify existing certificate content"))
    errors.extend(validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {}))
    return errors


def _conditions(csr: JSON) -> list[JSON]:
    return [condition for condition in ((csr.get("status") or {}).get("conditions") or [])
            if isinstance(condition, dict)]


def _of_type(csr: JSON, kind: str) -> list[JSON]:
    return [condition for condition in _conditions(csr) if condition.get("type") == kind]


def _decoded(value: Any) -> bytes:
    try:
        return base64.b64decode(value or "")
    except (binascii.Error, ValueError):
        return b""
