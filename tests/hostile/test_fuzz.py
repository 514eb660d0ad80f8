"""A short fuzz run against the committed OpenAPI documents: schemathesis generates requests for every
operation (a few each, from a fixed seed, so every run sends the same ones) and none may get a server
error; every refusal is a Status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings

from fakeapi.testing import FakeAPIServer

OPENAPI = Path(__file__).resolve().parents[2] / "fakeapi" / "openapi"
DOCUMENTS = [*sorted((OPENAPI / "v3").glob("*.json")), OPENAPI / "fakeapi-control.yaml"]
EXAMPLES = 2  # per operation (about 110 requests in all): generating pods is most of the time
# fault rules answer with the errors they are given, 500s included: that is their job
NOT_FUZZED = {"POST /fakeapi/v1/faults"}


def operations() -> list[Any]:
    found = []
    for document in DOCUMENTS:
        schema = schemathesis.openapi.from_path(str(document))
        found += [result.ok() for result in schema.get_all_operations()]
    return [operation for operation in found if operation.label not in NOT_FUZZED]


OPERATIONS = operations()


def test_every_document_is_fuzzed() -> None:
    labels = {operation.label for operation in OPERATIONS}
    assert {"POST /api/v1/namespaces/{namespace}/pods", "PATCH /api/v1/namespaces/{namespace}/pods/{name}",
            "POST /fakeapi/v1/clock", "POST /fakeapi/v1/seed"} <= labels
    assert len(labels) == len(OPERATIONS) > 40


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_no_generated_request_gets_a_server_error(fakeapi: FakeAPIServer, operation: Any) -> None:
    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy())
    def send(case: Any) -> None:
        # the header the control API asks of requests that change state
        response = case.call(base_url=fakeapi.url, headers={"X-Fakeapi-Control": "1"}, timeout=30)
        if response.status_code < 400:
            return
        status = response.json()
        assert (status["kind"], status["code"]) == ("Status", response.status_code), response.text
        # a 5xx only where upstream answers one itself: its storage errors come as a Status without reason
        assert response.status_code < 500 or status.get("reason") == "", response.text

    send()
