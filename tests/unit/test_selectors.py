"""labelSelector / fieldSelector parsing, messages and matching, checked against upstream's behaviour."""

from __future__ import annotations

import pytest

from fakeapi.kinds.event.fields import EVENT_FIELD_LABELS, event_fields
from fakeapi.kinds.namespace.fields import NAMESPACE_FIELD_LABELS, namespace_fields
from fakeapi.kinds.pod.fields import POD_FIELD_LABELS, pod_fields
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.labels import go_quote
from fakeapi.machinery.selectors import FieldLabels, parse_field_selector, parse_label_selector
from fakeapi.machinery.types import JSON

QUALIFIED_NAME = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
OPERATORS = "in, notin, =, ==, !=, gt, lt"
PARSE = "unable to parse requirement: "
NOT_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer"


def bad_request(call: object, *args: str) -> str:
    assert callable(call)
    with pytest.raises(BadRequest) as caught:
        call(*args)
    assert caught.value.to_status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": caught.value.message, "reason": "BadRequest", "code": 400,
    }
    return caught.value.message


# ---------------------------------------------------------------------------------------- labels: parse


@pytest.mark.parametrize("text", ["", "   "])
def test_label_selector_without_requirements_is_empty_and_matches_everything(text: str) -> None:
    selector = parse_label_selector(text)
    assert selector.empty()
    assert selector.matches(None)
    assert selector.matches({"a": "b"})


@pytest.mark.parametrize(
    "text",
    [
        "a=b", "a==b", "a!=b", "a", "!a", "a in (b)", "a notin (b)", "a>1", "a<1", "a=", "a==", "a in ()",
        "a in (,)", "x in (foo,,baz),y,z notin ()", " a = b , c ", "a\tin\t(b,c)", "\na\r\n", "in", "notin",
        "a=in", "a in (in,notin)", "example.com/a=b", "a=b,a=c", "a" * 63, "a=" + "b" * 63,
        "a>9223372036854775807", "a<0", "a.b_c-D=E.f_g-1",
    ],
)
def test_label_selector_accepts_upstream_grammar(text: str) -> None:
    assert not parse_label_selector(text).empty()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # top-level loop
        (",", "found ',', expected: !, identifier, or 'end of string'"),
        ("=a", "found '=', expected: !, identifier, or 'end of string'"),
        ("!=a", "found '!=', expected: !, identifier, or 'end of string'"),
        ("(a)", "found '(', expected: !, identifier, or 'end of string'"),
        ("a,", "found '', expected: identifier after ','"),
        ("a,,b", "found ',', expected: identifier after ','"),
        ("a,=b", "found '=', expected: identifier after ','"),
        ("a=b c", "found 'c', expected: ',' or 'end of string'"),
        ("a=b)", "found ')', expected: ',' or 'end of string'"),
        ("!a=b", "found '=', expected: ',' or 'end of string'"),
        ("a in (b) c", "found 'c', expected: ',' or 'end of string'"),
        # key and operator
        ("!", PARSE + "found '', expected: identifier"),
        ("!!a", PARSE + "found '!', expected: identifier"),
        ("a b", PARSE + f"found 'b', expected: {OPERATORS}"),
        ("a!", PARSE + f"found '!', expected: {OPERATORS}"),
        ("a (b)", PARSE + f"found '(', expected: {OPERATORS}"),
        ("a >= 1", PARSE + "found '=', expected: identifier"),
        ("a\0b=c", PARSE + f"found 'b', expected: {OPERATORS}"),  # NUL reads as the end, like Go's lexer
        # exact values
        ("a===", PARSE + "found '=', expected: identifier"),
        ("a=(b)", PARSE + "found '(', expected: identifier"),
        ("a=!b", PARSE + "found '!', expected: identifier"),
        ("a!=)", PARSE + "found ')', expected: identifier"),
        # value sets
        ("a in b", PARSE + "found 'b' expected: '('"),
        ("a notin", PARSE + "found '' expected: '('"),
        ("a in (", PARSE + "found '', expected: ',', ')' or identifier"),
        ("a in (=)", PARSE + "found '=', expected: ',', ')' or identifier"),
        ("a in (b c)", PARSE + "found 'c', expected: ',' or ')'"),
        ("a in (b", PARSE + "found '', expected: ',' or ')'"),
        ("a in (b,", PARSE + "found '', expected: ',', or identifier"),
        ("a in (b,=)", PARSE + "found '=', expected: ',', or identifier"),
    ],
)
def test_label_selector_syntax_errors_carry_upstream_messages(text: str, message: str) -> None:
    assert bad_request(parse_label_selector, text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-a", f'<nil>: Invalid value: "-a": {QUALIFIED_NAME}'),
        ("app:web", f'<nil>: Invalid value: "app:web": {QUALIFIED_NAME}'),
        ("a" * 64, f'<nil>: Invalid value: "{"a" * 64}": name part must be no more than 63 characters'),
        ("k/", f'<nil>: Invalid value: "k/": name part must be non-empty; {QUALIFIED_NAME}'),
        ("/k", '<nil>: Invalid value: "/k": prefix part must be non-empty'),
        ("Example.com/k", f'<nil>: Invalid value: "Example.com/k": prefix part {SUBDOMAIN}'),
        (
            "a/b/c",
            '<nil>: Invalid value: "a/b/c": a qualified name ' + QUALIFIED_NAME.removeprefix("name part ")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        ),
        ("é=1", f'<nil>: Invalid value: "é": {QUALIFIED_NAME}'),
        ("a\vb", f'<nil>: Invalid value: "a\\vb": {QUALIFIED_NAME}'),
        ("a=-x", f'values[0][a]: Invalid value: "-x": {LABEL_VALUE}'),
        ("a=" + "b" * 64, f'values[0][a]: Invalid value: "{"b" * 64}": must be no more than 63 characters'),
        ("a=b-", f'values[0][a]: Invalid value: "b-": {LABEL_VALUE}'),
        (
            "a in (z,-y,-x)",  # values are sorted before they are checked
            f'[values[0][a]: Invalid value: "-x": {LABEL_VALUE}, '
            f'values[1][a]: Invalid value: "-y": {LABEL_VALUE}]',
        ),
        ("a>b", f'values[0]: Invalid value: "b": {NOT_INTEGER}'),
        ("a<1.5", f'values[0]: Invalid value: "1.5": {NOT_INTEGER}'),
        ("a>", f'values[0]: Invalid value: "": {NOT_INTEGER}'),
        ("a>9223372036854775808", f'values[0]: Invalid value: "9223372036854775808": {NOT_INTEGER}'),
        ("a>-1", f'values[0][a]: Invalid value: "-1": {LABEL_VALUE}'),  # an integer, but not a label value
        (
            "a>" + "x" * 64,
            f'[values[0]: Invalid value: "{"x" * 64}": {NOT_INTEGER}, '
            f'values[0][a]: Invalid value: "{"x" * 64}": must be no more than 63 characters]',
        ),
    ],
)
def test_label_selector_invalid_keys_and_values_carry_upstream_messages(text: str, message: str) -> None:
    assert bad_request(parse_label_selector, text) == PARSE + message


def test_label_selector_reports_first_bad_requirement() -> None:
    message = PARSE + f'values[0][a]: Invalid value: "-x": {LABEL_VALUE}'
    assert bad_request(parse_label_selector, "a=-x,-b") == message


# ---------------------------------------------------------------------------------------- labels: match


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("a=b", {"a": "b"}, True),
        ("a=b", {"a": "c"}, False),
        ("a=b", {}, False),
        ("a==b", {"a": "b"}, True),
        ("a=", {"a": ""}, True),
        ("a=", {}, False),  # the key must exist even for the empty value
        ("a!=b", {"a": "c"}, True),
        ("a!=b", {"a": "b"}, False),
        ("a!=b", {}, True),  # != matches when the key is absent
        ("a in (b,c)", {"a": "c"}, True),
        ("a in (b,c)", {"a": "d"}, False),
        ("a in (b,c)", {}, False),
        ("a in ()", {"a": ""}, True),
        ("a in (b,)", {"a": ""}, True),
        ("a notin (b,c)", {"a": "d"}, True),
        ("a notin (b,c)", {"a": "b"}, False),
        ("a notin (b,c)", {}, True),  # notin matches when the key is absent
        ("a", {"a": ""}, True),
        ("a", {"b": "a"}, False),
        ("!a", {"b": "a"}, True),
        ("!a", {"a": ""}, False),
        ("a=b,c", {"a": "b", "c": "x"}, True),
        ("a=b,c", {"a": "b"}, False),
        ("a=b,a=c", {"a": "b"}, False),  # every requirement must hold
        ("in=notin", {"in": "notin"}, True),
        ("example.com/app=web", {"example.com/app": "web"}, True),
        ("a>5", {"a": "6"}, True),
        ("a>5", {"a": "5"}, False),
        ("a<5", {"a": "4"}, True),
        ("a<5", {"a": "-7"}, True),
        ("a<5", {"a": "5"}, False),
        ("a>5", {}, False),
        ("a<5", {}, False),
        ("a>5", {"a": "x"}, False),  # a value that is no integer never matches
        ("a>5", {"a": "6.0"}, False),
        ("a>5", {"a": " 6"}, False),
        ("a>5", {"a": "1_0"}, False),
        ("a>5", {"a": "+6"}, True),  # Go's ParseInt takes a sign
        ("a>0", {"a": "9223372036854775808"}, False),  # out of int64
    ],
)
def test_label_selector_matches_like_upstream(text: str, labels: dict[str, str], expected: bool) -> None:
    assert parse_label_selector(text).matches(labels) is expected


def test_label_selector_treats_missing_labels_as_empty() -> None:
    assert parse_label_selector("a!=b,c notin (d),!e").matches(None)
    assert not parse_label_selector("a").matches(None)


# ---------------------------------------------------------------------------------------- fields: parse


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        ("", []),
        (",", []),
        ("metadata.name=web", [("metadata.name", "=", "web")]),
        ("metadata.name==web", [("metadata.name", "=", "web")]),
        ("metadata.name!=web", [("metadata.name", "!=", "web")]),
        ("metadata.name=", [("metadata.name", "=", "")]),
        ("status.phase=Running,spec.nodeName=n1",
         [("spec.nodeName", "=", "n1"), ("status.phase", "=", "Running")]),
        ("spec.nodeName=a,,metadata.name=b", [("metadata.name", "=", "b"), ("spec.nodeName", "=", "a")]),
        ("metadata.name= web ", [("metadata.name", "=", " web ")]),  # no trimming
        ("metadata.name=a!b", [("metadata.name", "=", "a!b")]),
        ("metadata.name==", [("metadata.name", "=", "")]),
    ],
)
def test_field_selector_parses_terms_in_sorted_order(
    text: str, requirements: list[tuple[str, str, str]]
) -> None:
    selector = parse_field_selector(text, POD_FIELD_LABELS)
    assert selector.requirements() == requirements
    assert selector.empty() is (not requirements)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"metadata.name=a\,b", "a,b"),
        (r"metadata.name=a\=b", "a=b"),
        (r"metadata.name=a\\b", "a\\b"),
        (r"metadata.name=\\\,\=", "\\,="),
        ("metadata.name=plain", "plain"),
    ],
)
def test_field_selector_unescapes_backslash_sequences(text: str, value: str) -> None:
    assert parse_field_selector(text, POD_FIELD_LABELS).requirements() == [("metadata.name", "=", value)]


def test_field_selector_escaped_comma_does_not_split_terms() -> None:
    selector = parse_field_selector(r"status.phase=Running,metadata.name=x\,y", POD_FIELD_LABELS)
    assert selector.requirements() == [("metadata.name", "=", "x,y"), ("status.phase", "=", "Running")]
    assert selector.matches({"metadata.name": "x,y", "status.phase": "Running"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
        ("metadata.name=a,b", "invalid selector: 'metadata.name=a,b'; can't understand 'b'"),
        ("z=1,a", "invalid selector: 'z=1,a'; can't understand 'a'"),  # sorted terms: 'a' comes first
        ("metadata.name!a", "invalid selector: 'metadata.name!a'; can't understand 'metadata.name!a'"),
        # Go prints the rune with %v: its number
        ("metadata.name=a=b", "invalid field selector: unescaped character in value: 61"),
        (r"metadata.name=a\,b=c", "invalid field selector: unescaped character in value: 61"),
        ("metadata.name!==a", "invalid field selector: unescaped character in value: 61"),
        (r"metadata.name=a\x", r"invalid field selector: invalid escape sequence: \x"),
        ("metadata.name=a\\", "invalid field selector: invalid escape sequence: \\"),
        ("foo=1,b", "invalid selector: 'foo=1,b'; can't understand 'b'"),  # syntax before field labels
        ("zz=1,aa=2", "field label not supported: aa"),  # first unsupported label in sorted order
        ("=x", "field label not supported: "),
    ],
)
def test_field_selector_errors_carry_upstream_messages(text: str, message: str) -> None:
    assert bad_request(parse_field_selector, text, POD_FIELD_LABELS) == message


POD_LABELS = [
    "metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
    "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
    "status.nominatedNodeName",
]
NAMESPACE_LABELS = ["metadata.name", "status.phase"]
EVENT_LABELS = [
    "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
    "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
    "reportingComponent", "source", "type", "metadata.namespace", "metadata.name",
]

LABELS = {"Pod": POD_FIELD_LABELS, "Namespace": NAMESPACE_FIELD_LABELS, "Event": EVENT_FIELD_LABELS}


@pytest.mark.parametrize(
    ("kind", "label"),
    [("Pod", label) for label in POD_LABELS]
    + [("Namespace", label) for label in NAMESPACE_LABELS]
    + [("Event", label) for label in EVENT_LABELS],
)
def test_field_selector_accepts_each_kinds_supported_labels(kind: str, label: str) -> None:
    assert parse_field_selector(f"{label}=x", LABELS[kind]).requirements() == [(label, "=", "x")]


@pytest.mark.parametrize(
    ("kind", "label"),
    [
        ("Pod", "foo"), ("Pod", "metadata.labels"), ("Pod", "spec.nodename"), ("Pod", "status.hostIP"),
        ("Pod", "metadata.uid"), ("Namespace", "metadata.namespace"), ("Namespace", "name"),
        ("Namespace", "spec.nodeName"), ("Event", "involvedObject"), ("Event", "message"),
        ("Event", "source.component"), ("Event", "spec.nodeName"),
    ],
)
def test_field_selector_rejects_unsupported_labels(kind: str, label: str) -> None:
    assert bad_request(parse_field_selector, f"{label}=x", LABELS[kind]) == f"field label not supported: {label}"


def test_field_selector_renames_legacy_spec_host_for_pods() -> None:
    selector = parse_field_selector("spec.host=n1", POD_FIELD_LABELS)
    assert selector.requirements() == [("spec.nodeName", "=", "n1")]
    assert selector.matches_object({"spec": {"nodeName": "n1"}})
    message = bad_request(parse_field_selector, "spec.host=n1", NAMESPACE_FIELD_LABELS)
    assert message == "field label not supported: spec.host"


def test_field_selector_for_other_kinds_allows_only_object_meta() -> None:
    selector = parse_field_selector("metadata.namespace=a", FieldLabels())
    assert selector.requirements() == [("metadata.namespace", "=", "a")]
    assert bad_request(parse_field_selector, "spec.x=1", FieldLabels()) == (
        '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"'
    )


def test_field_selector_requires_exact_match_only_for_equal_terms() -> None:
    selector = parse_field_selector("metadata.name=web,status.phase!=Failed", POD_FIELD_LABELS)
    assert selector.requires_exact_match("metadata.name") == "web"
    assert selector.requires_exact_match("status.phase") is None
    assert selector.requires_exact_match("spec.nodeName") is None


# ---------------------------------------------------------------------------------------- fields: match


POD: JSON = {
    "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "nodeName": "node-1", "restartPolicy": "Always", "schedulerName": "default-scheduler",
        "serviceAccountName": "default", "hostNetwork": True,
    },
    "status": {"phase": "Running", "podIP": "10.0.0.9", "podIPs": [{"ip": "10.0.0.9"}, {"ip": "fd00::9"}],
               "nominatedNodeName": "node-2"},
}


def test_pod_selectable_fields_match_upstream_set() -> None:
    assert pod_fields(POD) == {
        "metadata.name": "web-1", "metadata.namespace": "default", "spec.nodeName": "node-1",
        "spec.restartPolicy": "Always", "spec.schedulerName": "default-scheduler",
        "spec.serviceAccountName": "default", "spec.hostNetwork": "true", "status.phase": "Running",
        "status.podIP": "10.0.0.9", "status.nominatedNodeName": "node-2",
    }


def test_pod_selectable_fields_default_to_empty_and_host_network_false() -> None:
    fields = pod_fields({"metadata": {"name": "p"}})
    assert fields["spec.hostNetwork"] == "false"
    assert fields["status.phase"] == "" and fields["spec.nodeName"] == "" and fields["status.podIP"] == ""


def test_pod_ip_comes_from_pod_ips_then_pod_ip() -> None:
    assert pod_fields({"status": {"podIP": "1.2.3.4"}})["status.podIP"] == "1.2.3.4"
    assert pod_fields({"status": {"podIP": "1.2.3.4", "podIPs": [{"ip": "5.6.7.8"}]}})[
        "status.podIP"] == "5.6.7.8"


def test_namespace_and_event_selectable_fields() -> None:
    namespace = {"metadata": {"name": "team-a"}, "status": {"phase": "Active"}}
    assert namespace_fields(namespace) == {"metadata.name": "team-a", "status.phase": "Active"}
    event = {
        "metadata": {"name": "web-1.17f", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-1", "uid": "u-1",
                           "apiVersion": "v1", "resourceVersion": "42", "fieldPath": "spec.containers{web}"},
        "reason": "Scheduled", "type": "Normal", "source": {"component": "default-scheduler"},
        "reportingComponent": "kubelet",
    }
    assert event_fields(event) == {
        "involvedObject.kind": "Pod", "involvedObject.namespace": "default",
        "involvedObject.name": "web-1", "involvedObject.uid": "u-1", "involvedObject.apiVersion": "v1",
        "involvedObject.resourceVersion": "42", "involvedObject.fieldPath": "spec.containers{web}",
        "reason": "Scheduled", "reportingComponent": "kubelet", "source": "default-scheduler",
        "type": "Normal", "metadata.name": "web-1.17f", "metadata.namespace": "default",
    }


def test_event_source_falls_back_to_reporting_component() -> None:
    assert event_fields({"reportingComponent": "kubelet"})["source"] == "kubelet"
    assert event_fields({"source": {}})["source"] == ""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("metadata.name=web-1", True),
        ("metadata.name=web-2", False),
        ("metadata.name!=web-2", True),
        ("metadata.namespace=default,status.phase=Running", True),
        ("metadata.namespace=default,status.phase=Pending", False),
        ("spec.hostNetwork=true", True),
        ("spec.hostNetwork=True", False),  # plain string comparison, as upstream
        ("spec.hostNetwork!=false", True),
        ("status.podIP=10.0.0.9", True),
        ("status.podIPs=", True),  # accepted but never exposed: always ""
        ("status.podIPs=10.0.0.9", False),
        ("status.nominatedNodeName==node-2", True),
        ("spec.nodeName=", False),
    ],
)
def test_field_selector_matches_pod_fields(text: str, expected: bool) -> None:
    selector = parse_field_selector(text, POD_FIELD_LABELS)
    assert selector.matches(pod_fields(POD)) is expected
    assert selector.matches_object(POD) is expected


def test_field_selector_for_an_unset_field_matches_empty_value() -> None:
    pending = {"metadata": {"name": "p"}, "spec": {}}
    assert parse_field_selector("spec.nodeName=", POD_FIELD_LABELS).matches_object(pending)
    assert parse_field_selector("spec.nodeName!=node-1", POD_FIELD_LABELS).matches_object(pending)
    assert parse_field_selector("spec.nodeName=", POD_FIELD_LABELS).matches({})


def test_describe_event_selector_matches_only_the_pods_events() -> None:
    selector = parse_field_selector(
        "involvedObject.name=web-1,involvedObject.namespace=default,involvedObject.uid=u-1", EVENT_FIELD_LABELS)
    mine = {"involvedObject": {"name": "web-1", "namespace": "default", "uid": "u-1"}}
    other = {"involvedObject": {"name": "web-1", "namespace": "default", "uid": "u-0"}}
    assert selector.matches_object(mine)
    assert not selector.matches_object(other)


# ---------------------------------------------------------------------------------------- go quoting


@pytest.mark.parametrize(
    ("text", "quoted"),
    [("abc", '"abc"'), ('a"b', '"a\\"b"'), ("a\\b", '"a\\\\b"'), ("\x01", '"\\x01"'), ("\x7f", '"\\x7f"'),
     ("\u0085", '"\\u0085"'), ("é", '"é"'), ("\U000e0001", '"\\U000e0001"'), ("\t", '"\\t"')],
)
def test_go_quote_matches_go_percent_q(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted
