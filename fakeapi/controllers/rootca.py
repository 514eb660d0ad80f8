"""The cluster CA certificate the root-CA publisher puts in every namespace's `kube-root-ca.crt`.

fakeapi serves plain HTTP and signs nothing, but clients and in-cluster configs expect `ca.crt` to hold a
PEM CA certificate they can parse. This one is fake and says so in its subject: a self-signed P-256 CA
certificate (valid 2000-2100) made once for the project with openssl, whose private key was thrown away,
so nothing can ever be signed with it. One fixed certificate keeps every server, dump and snapshot
identical and costs nothing at start, where making one per server would need a crypto library.
"""

from __future__ import annotations

FAKE_CA_CERTIFICATE = (
    "-----BEGIN CERTIFICATE-----\n"
    "MIIB6jCCAY+gAwIBAgIBATAKBggqhkjOPQQDAjBbMRAwDgYDVQQKDAdmYWtlYXBp\n"
    "MUcwRQYDVQQDDD5mYWtlYXBpIGZha2UgY2x1c3RlciBDQSAtIG5vdCBhIHJlYWwg\n"
    "Q0EsIGl0cyBrZXkgd2FzIGRpc2NhcmRlZDAgFw0wMDAxMDEwMDAwMDBaGA8yMTAw\n"
    "MDEwMTAwMDAwMFowWzEQMA4GA1UECgwHZmFrZWFwaTFHMEUGA1UEAww+ZmFrZWFw\n"
    "aSBmYWtlIGNsdXN0ZXIgQ0EgLSBub3QgYSByZWFsIENBLCBpdHMga2V5IHdhcyBk\n"
    "aXNjYXJkZWQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASiC4ffYzvNgVbOug4n\n"
    "+jFFg4FXTmfpt46dXR5RnWp7WpfapZ3nvgU73cFPKcNytVH438N8/5w6AGkX5yba\n"
    "c+gLo0IwQDAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwIBhjAdBgNVHQ4E\n"
    "FgQUWIwtAYkSKSMR1mCOeEZUoKtLeWYwCgYIKoZIzj0EAwIDSQAwRgIhAPNsm+xv\n"
    "iFqPbAA7geXwnHRWmW/hug/bqMRK1+RgEDL0AiEAvm6/DpGCP+HtRNXQUIEzF5fV\n"
    "UMI8Ydz95yhDOfDq+l4=\n"
    "-----END CERTIFICATE-----\n"
)
