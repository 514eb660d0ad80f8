"""Table output: HumanDuration, column definitions, rows and includeObject, whole Tables, Accept, events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from fakeapi.http.tableaccept import parse_table_accept, table_group_version
from fakeapi.kinds.event.table import EVENT_PRINTER
from fakeapi.kinds.namespace.table import NAMESPACE_PRINTER
from fakeapi.kinds.pod.table import POD_PRINTER
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.tables.columns import DEFAULT_PRINTER, Printer
from fakeapi.machinery.tables.table import table_row, to_table
from fakeapi.machinery.tables.timefmt import human_duration
from fakeapi.machinery.types import JSON

NOW = datetime(2026, 12, 2, 10, 27, 47, tzinfo=UTC)


def columns(printer: Printer) -> list[JSON]:
    return [column.definition() for column in printer.columns]
DAY = 86400


def ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def micro_ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# --- HumanDuration ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-2, "<invalid>"), (-1.5, "0s"), (-1, "0s"), (-0.4, "0s"), (0, "0s"), (0.99, "0s"), (59, "59s"),
        (119.9, "119s"), (120, "2m"), (121, "2m1s"), (599, "9m59s"), (600, "10m"), (659, "10m"),
        (3 * 3600 - 1, "179m"), (3 * 3600, "3h"), (3 * 3600 + 60, "3h1m"), (3 * 3600 + 119, "3h1m"),
        (8 * 3600 - 1, "7h59m"), (8 * 3600, "8h"), (48 * 3600 - 1, "47h"), (2 * DAY, "2d"),
        (2 * DAY + 3600, "2d1h"), (8 * DAY - 1, "7d23h"), (8 * DAY, "8d"), (730 * DAY - 1, "729d"),
        (730 * DAY, "2y"), (731 * DAY, "2y1d"), (8 * 365 * DAY - 1, "7y364d"), (8 * 365 * DAY, "8y"),
        (10 * 365 * DAY + 5 * DAY, "10y"),
    ],
)
def test_human_duration_matches_apimachinery(seconds: float, text: str) -> None:
    assert human_duration(seconds) == text


# --- column definitions -----------------------------------------------------------------------------
def _shape(columns: list[JSON]) -> list[tuple[str, str, str, int]]:
    return [(c["name"], c["type"], c["format"], c["priority"]) for c in columns]


def test_pod_columns_are_upstreams_nine_with_wide_ones_at_priority_1() -> None:
    assert _shape(columns(POD_PRINTER)) == [
        ("Name", "string", "name", 0), ("Ready", "string", "", 0), ("Status", "string", "", 0),
        ("Restarts", "string", "", 0), ("Age", "string", "", 0), ("IP", "string", "", 1),
        ("Node", "string", "", 1), ("Nominated Node", "string", "", 1), ("Readiness Gates", "string", "", 1),
    ]


def test_column_descriptions_are_upstreams_full_swagger_docs() -> None:
    pod = {c["name"]: c["description"] for c in columns(POD_PRINTER)}
    assert pod["Restarts"] == ("The number of times the containers in this pod have been restarted and when "
                               "the last container in this pod has restarted.")
    assert pod["Name"].startswith("Name must be unique within a namespace. Is required when creating")
    assert pod["Name"].endswith("More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names")
    assert "\n\nPopulated by the system. Read-only. Null for lists." in pod["Age"]
    assert pod["Node"].startswith("NodeName indicates in which node this pod is scheduled. If empty,")
    assert pod["IP"] == ("podIP address allocated to the pod. Routable at least within the cluster. "
                         "Empty if not yet allocated.")
    events = {c["name"]: c["description"] for c in columns(EVENT_PRINTER)}
    assert events["Object"] == "The object that this event is about."
    assert events["Count"] == "The number of times this event has occurred."


def test_event_columns_and_priorities() -> None:
    assert _shape(columns(EVENT_PRINTER)) == [
        ("Last Seen", "string", "", 0), ("Type", "string", "", 0), ("Reason", "string", "", 0),
        ("Object", "string", "", 0), ("Subobject", "string", "", 1), ("Source", "string", "", 1),
        ("Message", "string", "", 0), ("First Seen", "string", "", 1), ("Count", "string", "", 1),
        ("Name", "string", "name", 1),
    ]


def test_namespace_columns() -> None:
    namespace_columns = columns(NAMESPACE_PRINTER)
    assert _shape(namespace_columns) == [
        ("Name", "string", "name", 0), ("Status", "string", "", 0), ("Age", "string", "", 0),
    ]
    assert namespace_columns[1]["description"] == "The status of the namespace"


def test_other_kinds_get_the_default_name_and_created_at_columns() -> None:
    default_columns = columns(DEFAULT_PRINTER)
    assert _shape(default_columns) == [("Name", "string", "name", 0), ("Created At", "date", "", 0)]
    binding: JSON = {"metadata": {"name": "b", "creationTimestamp": "2026-12-02T10:00:00Z"}}
    assert table_row(DEFAULT_PRINTER, binding, NOW, "None") == {"cells": ["b", "2026-12-02T10:00:00Z"]}
    unset = table_row(DEFAULT_PRINTER, {"metadata": {"name": "b"}}, NOW, "None")
    assert unset["cells"][1] == "0001-01-01T00:00:00Z"


def test_column_definitions_are_fresh_each_table() -> None:
    to_table(POD_PRINTER, [], NOW, "None", "1")["columnDefinitions"][0]["name"] = "changed"
    assert to_table(POD_PRINTER, [], NOW, "None", "1")["columnDefinitions"][0]["name"] == "Name"


# --- rows and includeObject -------------------------------------------------------------------------
WEB_1: JSON = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-1", "labels": {"app": "web"}, "namespace": "default",
                 "uid": "ac11fcba-1d45-4492-9ef7-7a2b26d83256", "resourceVersion": "105",
                 "creationTimestamp": "2026-12-02T10:27:45Z"},
    "spec": {"nodeName": "fake-node-1", "containers": [{"name": "web", "image": "nginx"}]},
    "status": {"phase": "Running", "podIP": "10.244.0.10", "podIPs": [{"ip": "10.244.0.10"}],
               "containerStatuses": [{"name": "web", "ready": True, "restartCount": 0,
                                      "state": {"running": {"startedAt": "2026-12-02T10:27:46Z"}}}]},
}


@pytest.mark.parametrize("include", ["Metadata", ""])
def test_metadata_rows_carry_partial_object_metadata(include: str) -> None:
    row = table_row(POD_PRINTER, WEB_1, NOW, include)
    assert row["object"] == {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": WEB_1["metadata"]}


def test_object_rows_carry_the_whole_object() -> None:
    assert table_row(POD_PRINTER, WEB_1, NOW, "Object")["object"] == WEB_1


def test_none_rows_have_no_object() -> None:
    assert table_row(POD_PRINTER, WEB_1, NOW, "None") == {
        "cells": ["web-1", "1/1", "Running", "0", "2s", "10.244.0.10", "fake-node-1", "<none>", "<none>"],
    }


@pytest.mark.parametrize("bad", ["metadata", "All", 'x"y'])
def test_unknown_include_object_is_a_bad_request(bad: str) -> None:
    quoted = '"x\\"y"' if bad == 'x"y' else f'"{bad}"'
    with pytest.raises(BadRequest) as from_row:
        table_row(POD_PRINTER, WEB_1, NOW, bad)
    with pytest.raises(BadRequest) as from_table:
        to_table(POD_PRINTER, [], NOW, bad, "1")
    for caught in (from_row, from_table):
        assert caught.value.to_status()["message"] == f"unrecognized includeObject value: {quoted}"
        assert caught.value.code == 400


# --- whole tables -----------------------------------------------------------------------------------
def test_pod_list_table_matches_the_example_kubectl_accepted() -> None:
    table = to_table(POD_PRINTER, [WEB_1], NOW, "Metadata", "107")
    assert table == {
        "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "107"},
        "columnDefinitions": columns(POD_PRINTER),
        "rows": [{"cells": ["web-1", "1/1", "Running", "0", "2s", "10.244.0.10", "fake-node-1", "<none>",
                            "<none>"],
                  "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": WEB_1["metadata"]}}],
    }
    assert list(table) == ["kind", "apiVersion", "metadata", "columnDefinitions", "rows"]


def test_empty_list_has_empty_rows() -> None:
    assert to_table(POD_PRINTER, [], NOW, "Metadata", "5")["rows"] == []


def test_watch_event_tables_after_the_first_send_null_columns() -> None:
    table = to_table(POD_PRINTER, [WEB_1], NOW, "Metadata", "109", with_columns=False)
    assert table["columnDefinitions"] is None
    assert len(table["rows"]) == 1


def test_continue_token_and_remaining_count_go_into_metadata() -> None:
    table = to_table(POD_PRINTER, [WEB_1], NOW, "None", "42", continue_token="abc", remaining=3)
    assert table["metadata"] == {"resourceVersion": "42", "continue": "abc", "remainingItemCount": 3}
    assert to_table(POD_PRINTER, [], NOW, "None", "42", continue_token="")["metadata"] == {"resourceVersion": "42"}


def test_v1beta1_tables_use_that_version_throughout() -> None:
    table = to_table(POD_PRINTER, [WEB_1], NOW, "Metadata", "7", api_version="meta.k8s.io/v1beta1")
    assert table["apiVersion"] == "meta.k8s.io/v1beta1"
    assert table["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1beta1"


def test_namespace_rows() -> None:
    ns: JSON = {"metadata": {"name": "team-a", "creationTimestamp": ago(3 * 3600 + 120)},
                "status": {"phase": "Terminating"}}
    assert table_row(NAMESPACE_PRINTER, ns, NOW, "None")["cells"] == ["team-a", "Terminating", "3h2m"]
    assert table_row(NAMESPACE_PRINTER, {"metadata": {"name": "x"}}, NOW, "None")["cells"] == ["x", "", "<unknown>"]


# --- events -----------------------------------------------------------------------------------------
def event(**fields: object) -> JSON:
    base: JSON = {"metadata": {"name": "web-1.6adaac3f2aff4a3f", "namespace": "default"},
                  "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "default"},
                  "reason": "Scheduled", "type": "Normal",
                  "message": "Successfully assigned default/web-1 to fake-node-1"}
    base.update(fields)
    return base


@pytest.mark.parametrize(
    ("fields", "last_seen", "first_seen", "count"),
    [
        ({"firstTimestamp": ago(600), "lastTimestamp": ago(135), "count": 3}, "2m15s", "10m", 3),
        ({"firstTimestamp": ago(2), "lastTimestamp": ago(2), "count": 1}, "2s", "2s", 1),
        ({"firstTimestamp": ago(90)}, "90s", "90s", 1),
        ({"eventTime": micro_ago(30.5)}, "30s", "30s", 1),
        ({"eventTime": micro_ago(700), "series": {"count": 4, "lastObservedTime": micro_ago(5)}},
         "5s", "11m", 4),
        ({"firstTimestamp": ago(700), "count": 9, "series": {"count": 2, "lastObservedTime": micro_ago(65)}},
         "65s", "11m", 2),
        ({}, "<unknown>", "<unknown>", 1),
    ],
    ids=["last-and-first", "singleton", "no-last-uses-first", "event-time", "series",
         "series-overrides-count", "no-times"],
)
def test_event_times_and_count(fields: JSON, last_seen: str, first_seen: str, count: int) -> None:
    cells = table_row(EVENT_PRINTER, event(**fields), NOW, "None")["cells"]
    assert (cells[0], cells[7], cells[8]) == (last_seen, first_seen, count)


def test_event_row_in_full() -> None:
    ev = event(firstTimestamp=ago(2), lastTimestamp=ago(2), count=1,
               source={"component": "default-scheduler"})
    assert table_row(EVENT_PRINTER, ev, NOW, "None")["cells"] == [
        "2s", "Normal", "Scheduled", "pod/web-1", "", "default-scheduler",
        "Successfully assigned default/web-1 to fake-node-1", "2s", 1, "web-1.6adaac3f2aff4a3f",
    ]


@pytest.mark.parametrize(
    ("fields", "source"),
    [
        ({"source": {"component": "kubelet", "host": "node-1"}}, "kubelet, node-1"),
        ({"source": {"component": "kubelet"}}, "kubelet"),
        ({"reportingComponent": "my-ctrl", "reportingInstance": "my-ctrl-0"}, "my-ctrl, my-ctrl-0"),
        ({"source": {"component": "kubelet"}, "reportingInstance": "pod-x"}, "kubelet, pod-x"),
        ({"source": {"host": "node-1"}}, ", node-1"),
        ({}, ""),
    ],
    ids=["component-and-host", "component", "reporting-fallbacks", "mixed", "host-only", "none"],
)
def test_event_source(fields: JSON, source: str) -> None:
    assert table_row(EVENT_PRINTER, event(**fields), NOW, "None")["cells"][5] == source


def test_event_object_subobject_and_message() -> None:
    ev = event(involvedObject={"kind": "ReplicaSet", "name": "web-5d8f", "fieldPath": "spec.containers{web}"},
               message="  back-off restarting failed container \n")
    cells = table_row(EVENT_PRINTER, ev, NOW, "None")["cells"]
    assert (cells[3], cells[4], cells[6]) == ("replicaset/web-5d8f", "spec.containers{web}",
                                              "back-off restarting failed container")
    assert table_row(EVENT_PRINTER, event(involvedObject={"kind": "Node"}), NOW, "None")["cells"][3] == "node"


# --- Accept negotiation -----------------------------------------------------------------------------
KUBECTL_GET = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
               "g=meta.k8s.io,application/json")


@pytest.mark.parametrize(
    ("accept", "version"),
    [
        (KUBECTL_GET, "meta.k8s.io/v1"),
        ("application/json;as=Table;v=v1;g=meta.k8s.io", "meta.k8s.io/v1"),
        ("application/json;g=meta.k8s.io;v=v1beta1;as=Table", "meta.k8s.io/v1beta1"),
        ("application/json ; as=Table ; v=v1 ; g=meta.k8s.io", "meta.k8s.io/v1"),
        ('application/json;as="Table";v="v1";g="meta.k8s.io"', "meta.k8s.io/v1"),
        ("Application/JSON;as=Table;v=v1;g=meta.k8s.io", "meta.k8s.io/v1"),
        ("*/*;as=Table;v=v1;g=meta.k8s.io", "meta.k8s.io/v1"),
        # equal q: header order decides (goautoneg), so plain JSON wins
        ("application/json, application/json;as=Table;v=v1;g=meta.k8s.io", None),
        ("application/vnd.kubernetes.protobuf, application/json;as=Table;v=v1;g=meta.k8s.io",
         "meta.k8s.io/v1"),
        ("application/json;as=Table;v=v1;g=meta.k8s.io;pretty=1", "meta.k8s.io/v1"),
        ("application/json;as=Foo;v=v1;g=meta.k8s.io;pretty=1, application/json;as=Table;v=v1;g=meta.k8s.io",
         "meta.k8s.io/v1"),
        ("application/json;as=Table;g=meta.k8s.io;pretty=1, application/json", None),
        ("application/json", None),
        ("application/json, */*", None),
        ("", None),
        ("application/json;as=Table", None),
        ("application/json;as=Table;v=v2;g=meta.k8s.io", None),
        ("application/json;as=Table;v=v1;g=example.com", None),
        ("application/json;as=table;v=v1;g=meta.k8s.io", None),
        ("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", None),
        ("application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/json", None),
        ("application/json;as=Table;v=v1;g=meta.k8s.io;q=0", None),
        ("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", None),
        ("application/yaml;as=Table;v=v1;g=meta.k8s.io", None),
        ("application/vnd.kubernetes.protobuf,application/json", None),
        ("text/plain, junk, application", None),
    ],
)
def test_table_accept_negotiation(accept: str, version: str | None) -> None:
    assert table_group_version(accept) == version
    assert parse_table_accept(accept) is (version is not None)
