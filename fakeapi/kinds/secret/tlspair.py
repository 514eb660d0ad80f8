"""The PEM checks of Go's `tls.X509KeyPair`, whose error upstream returns as a warning for TLS secrets.

Only the PEM level is checked (blocks found, of the right types, in the right inputs); the certificate and
key themselves are not parsed, so a pair whose key does not match its certificate draws no warning here.
"""

from __future__ import annotations

import base64
import binascii
import re

_BLOCK = re.compile(rb"(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n(.*?)\n?-----END \1-----", re.DOTALL)
_HEADER = re.compile(rb"^[^:\n]+:[^\n]*\n", re.MULTILINE)


def pem_block_types(data: bytes) -> list[str]:
    """The types of the well-formed PEM blocks in `data` (a block whose body is not base64 is skipped)."""
    types: list[str] = []
    for match in _BLOCK.finditer(data):
        body = _HEADER.sub(b"", match.group(2)) if b":" in match.group(2) else match.group(2)
        try:
            base64.b64decode(b"".join(body.split()), validate=True)
        except (binascii.Error, ValueError):
            continue
        types.append(match.group(1).decode(errors="replace"))
    return types


def key_pair_error(cert: bytes, key: bytes) -> str | None:
    """tls.X509KeyPair's error for these inputs, as far as their PEM blocks tell."""
    cert_types = pem_block_types(cert)
    if "CERTIFICATE" not in cert_types:
        if not cert_types:
            return "tls: failed to find any PEM data in certificate input"
        if len(cert_types) == 1 and cert_types[0].endswith("PRIVATE KEY"):
            return ("tls: failed to find certificate PEM data in certificate input, but did find a private key; "
                    "PEM inputs may have been switched")
        return ('tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of '
                f"the following types: [{' '.join(cert_types)}]")
    skipped: list[str] = []
    for block_type in pem_block_types(key):
        if block_type == "PRIVATE KEY" or block_type.endswith(" PRIVATE KEY"):
            return None
        skipped.append(block_type)
    if not skipped:
        return "tls: failed to find any PEM data in key input"
    if skipped == ["CERTIFICATE"]:
        return "tls: found a certificate rather than a key in the PEM for the private key"
    return ('tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM '
            f"blocks of the following types: [{' '.join(skipped)}]")
