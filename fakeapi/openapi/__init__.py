"""The api/v1 OpenAPI documents: generated from the schemas by `fakeapi openapi`, committed beside this file.

`build` generates them (with apispec, a generate-time tool); `serve` answers /openapi/v2, /openapi/v3 and
/openapi/v3/api/v1 from the committed files, so the server never needs apispec.
"""

from __future__ import annotations

from pathlib import Path

DOCUMENTS_DIR = Path(__file__).parent
V3_DOCUMENT = Path("v3") / "api__v1_openapi.json"
V2_DOCUMENT = Path("v2") / "swagger.json"
V3_GROUP_VERSION = "api/v1"  # the one group version fakeapi serves, as named under /openapi/v3
