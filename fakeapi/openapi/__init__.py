"""The OpenAPI documents: generated from the schemas by `fakeapi openapi`, committed beside this file.

`build` generates them (with apispec, a generate-time tool); fakeapi.http.openapi answers /openapi/v2,
/openapi/v3 and /openapi/v3/{group version} from the committed files, so the server never needs apispec.
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
