"""The OpenAPI documents, built from upstream's definitions (`fakeapi.machinery.schema`) for what a server
serves: fakeapi.http.openapi answers /openapi/v2, /openapi/v3 and /openapi/v3/{group version} with the
documents of the kinds served at the time. `fakeapi openapi` writes those of a fresh server beside this
file (the repository's `openapi/`), for readers and tools; `fakeapi openapi --check` proves them current.
"""

from __future__ import annotations

from pathlib import Path

DOCUMENTS_DIR = Path(__file__).parent
V2_DOCUMENT = Path("v2") / "swagger.json"
V3_DIR = Path("v3")


def v3_group_version(group: str, version: str) -> str:
    """A group version as /openapi/v3 names it: `api/v1`, `apis/coordination.k8s.io/v1`."""
    return f"apis/{group}/{version}" if group else f"api/{version}"


def v3_document(group_version: str) -> Path:
    """The committed file of a group version's document, named as kube-openapi names them."""
    return V3_DIR / (group_version.replace("/", "__") + "_openapi.json")
