"""parse_sharing (the stored object an update compares against, with resent members shared) and
same_json (whether a resent part is the stored one)."""

import orjson
import pytest

from fakeapi.machinery.jsonvalues import parse_sharing, same_json

STORED = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "1"}},
          "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"phase": "Pending"}}


@pytest.mark.parametrize("like", [
    {**STORED, "status": {"phase": "Running"}},  # the common status write: all but the last resent
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "2"}}},  # differs early
    {"kind": "Pod", "apiVersion": "v1"},  # another member order
    {**STORED, "extra": 1},  # more members than stored
    {"apiVersion": "v1"},  # fewer
    {},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {1: "yaml key"}},  # not serialisable as JSON
    {"apiVersion": "v1", "kind": "Podx"},  # a longer value with the same start
    STORED,
])
def test_parse_sharing_equals_a_plain_parse(like):
    data = orjson.dumps(STORED)
    parsed = parse_sharing(data, like)
    assert parsed == STORED
    assert list(parsed) == list(STORED)


def test_parse_sharing_takes_resent_members_from_the_body():
    like = orjson.loads(orjson.dumps({**STORED, "status": {"phase": "Running"}}))
    parsed = parse_sharing(orjson.dumps(STORED), like)
    assert parsed["metadata"] is like["metadata"] and parsed["spec"] is like["spec"]
    assert parsed["status"] == {"phase": "Pending"}


def test_parse_sharing_does_not_take_a_number_that_only_starts_the_same():
    parsed = parse_sharing(orjson.dumps({"a": 12, "b": 2}), {"a": 1, "b": 2})
    assert parsed == {"a": 12, "b": 2}


@pytest.mark.parametrize(("a", "b", "same"), [
    ({"n": 1, "s": ["x"]}, {"n": 1, "s": ["x"]}, True),
    (1, 1, True),
    ("v", "v", True),
    (None, None, True),
    (True, 1, False),  # equal for Python, not for a strict JSON decoder
    (1, 1.0, False),
    ([{"restartCount": True}], [{"restartCount": 1}], False),
    ({"a": {"b": 0}}, {"a": {"b": False}}, False),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # another member order: decoded afresh, which is safe
    ({"a": 1}, {"a": 2}, False),
])
def test_same_json_tells_apart_what_python_equates(a, b, same):
    assert same_json(a, b) is same
