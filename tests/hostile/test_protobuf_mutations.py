"""Protobuf bodies with bytes changed, cut out or put in: each answer is the object (when the change still
reads as one) or a Status with a 4xx, never a 500."""

from __future__ import annotations

import random

import aiohttp
import pytest

from fakeapi.testing import FakeAPIServer
from tests.hostile.checks import PODS, status_of
from tests.unit.test_protobuf import KUBECTL_CREATE_CONFIGMAP, KUBECTL_CREATE_NS_FOO, envelope, message
from tests.unit.test_protobuf_message import POD_META, POD_SPEC, POD_STATUS

PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf"}
BODIES = {
    "/api/v1/namespaces": KUBECTL_CREATE_NS_FOO,
    "/api/v1/namespaces/default/configmaps": KUBECTL_CREATE_CONFIGMAP,
    PODS: envelope(message(1, POD_META) + message(2, POD_SPEC) + message(3, POD_STATUS), kind="Pod"),
}
MUTATIONS = 150  # per body


def mutated(body: bytes, rng: random.Random) -> bytes:
    data = bytearray(body)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(4, len(data))  # past `k8s\0`, which decides the format
        change = rng.random()
        if change < 0.6:
            data[at] = rng.randrange(256)
        elif change < 0.8:
            del data[at:at + rng.randint(1, 4)]
        else:
            data[at:at] = rng.randbytes(rng.randint(1, 4))
    return bytes(data)


@pytest.mark.parametrize("path", list(BODIES))
async def test_mutated_protobuf_bodies_get_an_object_or_a_4xx_status(http: aiohttp.ClientSession,
                                                                     async_fakeapi: FakeAPIServer, path: str) -> None:
    rng = random.Random(path)
    answers = set()
    for _ in range(MUTATIONS):
        async with http.post(path, data=mutated(BODIES[path], rng), headers=PROTOBUF) as response:
            answer = await response.json()
        if response.status != 201:
            assert status_of(answer)[0] == response.status < 500, answer
        answers.add(response.status)
    assert 415 in answers and len(answers) > 1  # the mutations reach past the envelope
