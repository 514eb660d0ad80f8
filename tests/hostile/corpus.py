"""Hostile requests, as data: what is sent (method, path, headers, body) and what upstream answers (code and
reason of the Status). None of them may change the store: the server holds a pod `web` on `node-1`."""

from __future__ import annotations

import gzip
import json
from typing import Any, NamedTuple

from tests.hostile.checks import billion_laughs

NS = "/api/v1/namespaces/default"
PODS = NS + "/pods"
WEB = PODS + "/web"
CONTROL = "/fakeapi/v1"
LIMIT = 3 * 1024 * 1024

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
MERGE = {"Content-Type": "application/merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}

BAD, TOO_LARGE, INVALID = (400, "BadRequest"), (413, "RequestEntityTooLarge"), (422, "Invalid")
NOT_FOUND, NOT_ALLOWED, UNSUPPORTED = (404, "NotFound"), (405, "MethodNotAllowed"), (415, "UnsupportedMediaType")
FORBIDDEN = (403, "Forbidden")
CONTROL_HEADER = {"X-Fakeapi-Control": "1"}  # what the control API asks of requests that change state


class Case(NamedTuple):
    name: str
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    answer: tuple[int, str]  # the Status's code and reason


def pod(name: str = "hostile", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "a", "image": "nginx"}], **spec}}


def with_meta(**meta: Any) -> dict[str, Any]:
    body = pod()
    body["metadata"].update(meta)
    return body


def container(**fields: Any) -> dict[str, Any]:
    return pod(containers=[{"name": "a", "image": "nginx", **fields}])


def text(value: Any) -> bytes:
    return json.dumps(value).encode()  # the stdlib: it writes what orjson will not (deep, 1e400)


def nested(depth: int, leaf: Any = None) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


POD_YAML = "apiVersion: v1\nkind: Pod\nmetadata: {name: hostile}\nspec:\n  containers: [{name: a, image: nginx}]\n"


def pod_yaml(extra: str) -> bytes:
    return (POD_YAML + extra).encode()


def alias_bomb_over(limit: int) -> bytes:
    """Few aliases, each of a long list: allowed by the alias ratio, but expanding past `limit`."""
    words = ",".join(["lorem ipsum dolor sit amet"] * 4000)
    return pod_yaml(f"  args: &a [{words}]\nx: [" + ",".join(["*a"] * (limit // 100_000 + 1)) + "]\n")


def merge_bomb() -> bytes:
    lines = ["x0: &x0 {k0: 1}"] + [f"x{i}: &x{i} {{<<: [*x{i - 1}, *x{i - 1}], k{i}: 1}}" for i in range(1, 30)]
    return "\n".join(lines).encode()


def yaml_cases() -> list[Case]:
    bodies: list[tuple[str, bytes, tuple[int, str]]] = [
        ("billion laughs", billion_laughs(), BAD),
        ("wider laughs", billion_laughs(levels=6, width=30), BAD),
        ("alias in its own anchor", b"a: &a [*a]", BAD),
        ("map alias in its own anchor", b"a: &a {b: *a}", BAD),
        ("merge key bomb", merge_bomb(), BAD),
        ("aliases expanding past 3 MiB", alias_bomb_over(LIMIT), TOO_LARGE),
        ("flow nesting 5000 deep", b"[" * 5000 + b"]" * 5000, BAD),
        ("block nesting 5000 deep", b"- " * 5000 + b"a", BAD),
        ("mapping nesting 1000 deep", b"a: {" * 1000 + b"}" * 1000, BAD),
        ("nesting 101 deep", b"[" * 101 + b"]" * 101, BAD),
        ("infinity", pod_yaml("  priority: .inf\n"), BAD),
        ("minus infinity", pod_yaml("  x: -.inf\n"), BAD),
        ("not a number", pod_yaml("  x: .nan\n"), BAD),
        ("null map key", b"apiVersion: v1\nkind: Pod\n~: 1\n", BAD),
        ("list map key", b"apiVersion: v1\nkind: Pod\n[a]: 1\n", BAD),
        ("unknown tag", b"apiVersion: v1\nkind: !pod Pod\n", BAD),
        ("map tag on a list", b"apiVersion: v1\nkind: Pod\nmetadata: !!map [a]\n", BAD),
        ("unclosed flow", b"apiVersion: v1\nkind: [Pod\n", BAD),
        ("tab indentation", b"apiVersion: v1\nmetadata:\n\tname: a\n", BAD),
        ("undefined alias", b"apiVersion: v1\nkind: *pod\n", BAD),
        ("invalid UTF-8", b"apiVersion: v1\nkind: Pod\nmetadata: {name: \xff\xfe}\n", BAD),
        ("NUL byte", b"apiVersion: v1\nkind: Pod\x00\n", BAD),
        ("integer beyond 64 bits", pod_yaml("  priority: 99999999999999999999\n"), BAD),
        ("integer of 400 digits", pod_yaml("  priority: " + "9" * 400 + "\n"), BAD),
        ("port beyond 64 bits", pod_yaml("  initContainers: [{name: i, image: i, ports: [{containerPort: 1"
                                         + "0" * 20 + "}]}]\n"), BAD),
        ("a list", b"- a\n- b\n", BAD),
        ("a string", b"just text\n", BAD),
        ("a date for a name", b"apiVersion: v1\nkind: Pod\nmetadata: {name: 2024-01-01, labels: [a]}\n", BAD),
    ]
    cases = [Case(f"yaml: {name}", "POST", PODS, YAML, body, answer) for name, body, answer in bodies]
    cases += [
        Case("yaml: a bomb as a whole update", "PUT", WEB, YAML, billion_laughs().replace(b"bomb", b"web"), BAD),
        Case("yaml: a bomb as an apply patch", "PATCH", WEB + "?fieldManager=m", APPLY,
             billion_laughs().replace(b"bomb", b"web"), BAD),
        Case("yaml: an apply patch nested 5000 deep", "PATCH", WEB + "?fieldManager=m", APPLY,
             b"[" * 5000 + b"]" * 5000, BAD),
        Case("yaml: an apply patch with infinity", "PATCH", WEB + "?fieldManager=m", APPLY,
             b"apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {priority: .inf}\n", BAD),
        Case("yaml: a bomb as delete options", "DELETE", WEB, YAML, billion_laughs(), BAD),
        Case("yaml: a bomb as a namespace", "POST", "/api/v1/namespaces", YAML,
             billion_laughs().replace(b"kind: Pod", b"kind: Namespace"), BAD),
    ]
    return cases


def json_cases() -> list[Case]:
    pods: list[tuple[str, bytes, tuple[int, str]]] = [
        ("nested 101 deep", text(nested(101)), BAD),
        ("nested 2000 deep", b"[" * 2000 + b"]" * 2000, BAD),
        ("nested 100000 deep", b"[" * 100_000 + b"]" * 100_000, BAD),
        ("a volume source nested 250 deep",
         text(pod(volumes=[{"name": "v", "flexVolume": nested(250, "x")}])), BAD),
        ("fieldsV1 nested 250 deep",
         text(with_meta(managedFields=[{"manager": "m", "operation": "Update", "apiVersion": "v1",
                                        "fieldsType": "FieldsV1", "fieldsV1": nested(250)}])), BAD),
        ("an unknown field nested 250 deep", text({**pod(), "extra": nested(250)}), BAD),
        ("1e400", text(pod()).replace(b'"spec":', b'"x": 1e400, "spec":'), BAD),
        ("NaN", text(pod()).replace(b'"spec":', b'"x": NaN, "spec":'), BAD),
        ("Infinity", text(pod()).replace(b'"spec":', b'"x": Infinity, "spec":'), BAD),
        ("-Infinity", text(pod()).replace(b'"spec":', b'"x": -Infinity, "spec":'), BAD),
        ("a port beyond 64 bits", text(container(ports=[{"containerPort": 99999999999999999999}])), BAD),
        ("a port of 1e30", text(container(ports=[{"containerPort": 1e30}])), BAD),
        ("a port of 80.0", text(container(ports=[{"containerPort": 80.0}])), BAD),
        ("a port as text", text(container(ports=[{"containerPort": "80"}])), BAD),
        ("a priority beyond int32", text(pod(priority=2147483648)), BAD),
        ("a deadline beyond int64", text(pod(activeDeadlineSeconds=9223372036854775808)), BAD),
        ("a deadline of 1.5", text(pod(activeDeadlineSeconds=1.5)), BAD),
        ("a grace period below int64", text(pod(terminationGracePeriodSeconds=-9223372036854775809)), BAD),
        ("a time in year 10000 by its offset", text(with_meta(creationTimestamp="9999-12-31T23:59:59-01:00")), BAD),
        ("a time in year 0 by its offset", text(with_meta(creationTimestamp="0001-01-01T00:00:00+01:00")), BAD),
        ("a number annotation", text(with_meta(annotations={"a": 1})), BAD),
        ("a list of labels", text(with_meta(labels=["a"])), BAD),
        ("metadata as text", text({**pod(), "metadata": "web"}), BAD),
        ("spec as a list", text({**pod(), "spec": []}), BAD),
        ("containers as an object", text(pod(containers={"name": "a"})), BAD),
        ("kind as a number", text({**pod(), "kind": 1}), BAD),
        ("apiVersion as an object", text({**pod(), "apiVersion": {}}), BAD),
        ("a list", b"[]", BAD),
        ("a string", b'"pod"', BAD),
        ("a number", b"1", BAD),
        ("an empty body", b"", BAD),
        ("only whitespace", b" \n\t ", BAD),
        ("cut short", text(pod())[:40], BAD),
        ("trailing garbage", text(pod()) + b"x", BAD),
        ("a byte order mark", b"\xef\xbb\xbf" + text(pod()), BAD),
        ("a name too long", text(with_meta(name="a" * 254)), INVALID),
        ("a name with a slash", text(with_meta(name="a/b")), INVALID),
        ("no name", text(with_meta(name="")), INVALID),
        ("another namespace in the body", text(with_meta(namespace="kube-system")), BAD),
        ("annotations over 256 KiB", text(with_meta(annotations={"a": "x" * (256 * 1024)})), INVALID),
        ("a body one byte over 3 MiB", b"{" + b" " * LIMIT, TOO_LARGE),
        ("a body of 3 MiB", b"{" + b" " * (LIMIT - 1), BAD),
        ("gzip content", gzip.compress(text(pod())), BAD),
    ]
    cases = [Case(f"json: {name}", "POST", PODS, JSON, body, answer) for name, body, answer in pods]
    strict = PODS + "?fieldValidation=Strict"
    cases += [
        Case("json: unknown fields, strict", "POST", strict, JSON, text({**pod(), "extra": 1}), BAD),
        Case("json: gzip content, encoded", "POST", PODS, {**JSON, "Content-Encoding": "gzip"},
             gzip.compress(text(pod())), BAD),
        Case("json: deflate content, encoded", "POST", PODS, {**JSON, "Content-Encoding": "deflate"},
             gzip.compress(text(pod())), BAD),
        Case("json: a text body", "POST", PODS, {"Content-Type": "text/plain"}, text(pod()), UNSUPPORTED),
        Case("json: an XML body", "POST", PODS, {"Content-Type": "application/xml"}, b"<pod/>", UNSUPPORTED),
        Case("json: protobuf for a pod", "POST", PODS, {"Content-Type": "application/vnd.kubernetes.protobuf"},
             b"k8s\x00\x0a\x00", UNSUPPORTED),
        Case("json: broken protobuf namespace", "POST", "/api/v1/namespaces",
             {"Content-Type": "application/vnd.kubernetes.protobuf"}, b"k8s\x00\xff\xff\xff", UNSUPPORTED),
        Case("json: a name not the URL's", "PUT", WEB, JSON, text(with_meta(name="other")), BAD),
        Case("json: an update nested 2000 deep", "PUT", WEB, JSON, b"[" * 2000 + b"]" * 2000, BAD),
        Case("json: a status update with a port beyond 64 bits", "PUT", WEB + "/status", JSON,
             text({**with_meta(name="web"), "status": {"hostIP": "1.2.3.4", "containerStatuses": [
                 {"name": "a", "ready": True, "restartCount": 99999999999999999999, "image": "i", "imageID": ""}]}}),
             BAD),
        Case("json: delete options nested deep", "DELETE", WEB, JSON, text({"x": nested(200)}), BAD),
        Case("json: delete options of another kind", "DELETE", WEB, JSON, b'{"gracePeriodSeconds": "1"}', BAD),
    ]
    return cases


def patch_cases() -> list[Case]:
    patches: list[tuple[str, dict[str, str], bytes, tuple[int, str]]] = [
        ("a JSON patch nested 250 deep", JSON_PATCH,
         text([{"op": "add", "path": "/metadata/annotations", "value": nested(250)}]), BAD),
        ("a merge patch nested 250 deep", MERGE, text({"metadata": {"annotations": nested(250)}}), BAD),
        ("a strategic patch nested 250 deep", STRATEGIC, text({"spec": nested(250)}), BAD),
        ("a merge patch nested 2000 deep", MERGE, b"[" * 2000 + b"]" * 2000, BAD),
        ("a JSON patch that is an object", JSON_PATCH, b"{}", BAD),
        ("a JSON patch of numbers", JSON_PATCH, b"[1, 2]", BAD),
        ("a JSON patch with an unknown op", JSON_PATCH, text([{"op": "frobnicate", "path": "/spec"}]), INVALID),
        ("a JSON patch to nowhere", JSON_PATCH, text([{"op": "replace", "path": "/no/such/path", "value": 1}]),
         INVALID),
        ("a JSON patch with a bad pointer", JSON_PATCH, text([{"op": "add", "path": "spec", "value": 1}]), INVALID),
        ("a JSON patch failing its test", JSON_PATCH, text([{"op": "test", "path": "/metadata/name", "value": "x"}]),
         INVALID),
        ("a JSON patch of 10001 operations", JSON_PATCH,
         text([{"op": "test", "path": "/metadata/name", "value": "web"}] * 10001), TOO_LARGE),
        ("a JSON patch making the port huge", JSON_PATCH,
         text([{"op": "add", "path": "/spec/activeDeadlineSeconds", "value": 99999999999999999999}]), BAD),
        ("a merge patch that is not JSON", MERGE, b"{", BAD),
        ("a merge patch renaming", MERGE, text({"metadata": {"name": "other"}}), BAD),
        ("a merge patch with infinity", MERGE, b'{"spec": {"priority": 1e400}}', BAD),
        ("a strategic patch with an unknown directive", STRATEGIC,
         text({"spec": {"containers": [{"$patch": "frobnicate", "name": "a"}]}}), BAD),
        ("a patch as plain JSON", JSON, text({"metadata": {"labels": {"a": "b"}}}), UNSUPPORTED),
        ("an apply patch without a field manager", APPLY, text(pod("web")), INVALID),
    ]
    return [Case(f"patch: {name}", "PATCH", WEB, headers, body, answer) for name, headers, body, answer in patches]


def query_and_path_cases() -> list[Case]:
    gets: list[tuple[str, str, tuple[int, str]]] = [
        ("a limit that is not a number", PODS + "?limit=ten", BAD),
        # upstream's own reason-less 500: the storage versioner's error reaches the client as it is
        ("a resourceVersion that is not a number", PODS + "?resourceVersion=abc", (500, "")),
        ("an unknown resourceVersionMatch", PODS + "?resourceVersion=1&resourceVersionMatch=Newest", INVALID),
        ("a timeoutSeconds that is not a number", PODS + "?timeoutSeconds=soon", BAD),
        ("an unsupported field selector", PODS + "?fieldSelector=spec.image%3Dnginx", BAD),
        ("a field selector without an operator", PODS + "?fieldSelector=metadata.name", BAD),
        ("a broken label selector", PODS + "?labelSelector=a%20in%20(b", BAD),
        ("a continue token that is garbage", PODS + "?continue=garbage", BAD),
        ("log lines below zero", WEB + "/log?tailLines=-1", INVALID),
        ("log seconds of zero", WEB + "/log?sinceSeconds=0", INVALID),
        ("log bytes of zero", WEB + "/log?limitBytes=0", INVALID),
        ("the log of no such container", WEB + "/log?container=nope", BAD),
        ("a log time that is no time", WEB + "/log?sinceTime=yesterday", BAD),
        ("an unknown resource", NS + "/gizmos", NOT_FOUND),
        ("an unknown group", "/apis/no.such.group/v1/gizmos", NOT_FOUND),
        ("an unknown version", "/api/v2/pods", NOT_FOUND),
        ("a pod that is not there", PODS + "/nope", NOT_FOUND),
        ("a name of 300 characters", PODS + "/" + "a" * 300, NOT_FOUND),
        ("a name with an escaped slash", PODS + "/a%2Fb", NOT_FOUND),
        ("an unknown subresource", WEB + "/frobnicate", NOT_FOUND),
        ("a path outside the API", "/etc/passwd", NOT_FOUND),
        ("a path going up", "/api/v1/../../etc/passwd", NOT_FOUND),
    ]
    cases = [Case(f"query: {name}", "GET", path, {}, b"", answer) for name, path, answer in gets]
    table = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
    cases += [
        Case("query: an unknown includeObject", "GET", PODS + "?includeObject=Everything", table, b"", BAD),
        Case("query: an unknown fieldValidation", "POST", PODS + "?fieldValidation=Maybe", JSON, text(pod()), BAD),
        Case("query: an unknown dryRun", "POST", PODS + "?dryRun=Some", JSON, text(pod()), BAD),
        Case("query: a grace period that is not a number", "DELETE", WEB + "?gracePeriodSeconds=soon", {}, b"", BAD),
        Case("query: an unknown propagation policy", "DELETE", WEB + "?propagationPolicy=Everywhere", {}, b"",
             INVALID),
        Case("query: a field manager of 200 characters", "POST", PODS + "?fieldManager=" + "m" * 200, JSON,
             text(pod()), INVALID),
        Case("path: a pod in no namespace", "POST", "/api/v1/namespaces/nope/pods", JSON, text(pod()), NOT_FOUND),
        Case("path: PUT on a collection", "PUT", PODS, JSON, text(pod()), NOT_ALLOWED),
        Case("path: POST on an object", "POST", WEB, JSON, text(pod()), NOT_ALLOWED),
        Case("path: DELETE on discovery", "DELETE", "/api/v1", {}, b"", NOT_ALLOWED),
        Case("path: the status of no pod", "PUT", PODS + "/nope/status", JSON, text(pod("nope")), NOT_FOUND),
        Case("path: deleting no pod", "DELETE", PODS + "/nope", {}, b"", NOT_FOUND),
        Case("path: binding no pod", "POST", PODS + "/nope/binding", JSON,
             text({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "nope"},
                   "target": {"kind": "Node", "name": "node-1"}}), NOT_FOUND),
    ]
    return cases


def control_cases() -> list[Case]:
    posts: list[tuple[str, str, dict[str, str], bytes, tuple[int, str]]] = [
        ("the clock a century of centuries ahead", "/clock", JSON, b'{"advanceSeconds": 1e17}', BAD),
        ("the clock far behind", "/clock", JSON, b'{"advanceSeconds": -1e17}', BAD),
        ("the clock in year 10000", "/clock", JSON, b'{"now": "10000-01-01T00:00:00Z"}', BAD),
        ("the clock in year 10000 by its offset", "/clock", JSON, b'{"now": "9999-12-31T23:00:00-05:00"}', BAD),
        ("the clock past 9999 once advanced", "/clock", JSON,
         b'{"frozen": true, "now": "9999-12-31T23:59:00Z", "advanceSeconds": 120}', BAD),
        ("the clock as a list", "/clock", JSON, b"[]", BAD),
        ("the clock nested deep", "/clock", JSON, b'{"now": ' + b"[" * 500 + b"]" * 500 + b"}", BAD),
        ("the clock not JSON", "/clock", JSON, b"{", BAD),
        ("the clock frozen maybe", "/clock", JSON, b'{"frozen": "maybe"}', BAD),
        ("a seed naming a file in its items", "/seed", JSON, b'{"items": "/etc/passwd"}', BAD),
        ("a seed List naming a file", "/seed", JSON, b'{"kind": "List", "items": "/etc/hostname"}', BAD),
        ("a seed array of a file name", "/seed", JSON, b'["/etc/passwd"]', BAD),
        ("a seed string naming a file", "/seed", JSON, b'"/etc/passwd"', BAD),
        ("a seed text naming a file", "/seed", {"Content-Type": "text/plain"}, b"/etc/passwd", UNSUPPORTED),
        ("a seed YAML naming a file", "/seed", YAML, b"/etc/passwd\n", BAD),
        ("a seed bomb", "/seed", YAML, billion_laughs(), BAD),
        ("a seed nested deep", "/seed", JSON, text({"items": [nested(150)]}), BAD),
        ("a seed of an unknown kind", "/seed", JSON, text({"apiVersion": "v1", "kind": "Gizmo"}), BAD),
        ("a seed of an invalid pod", "/seed", JSON, text(with_meta(name="a/b")), INVALID),
        ("a seed that is not JSON", "/seed", JSON, b"{", BAD),
        ("a fault without an action", "/faults", JSON, b'{"verb": "get"}', BAD),
        ("a fault with status 999", "/faults", JSON, b'{"status": 999}', BAD),
        ("a fault delayed by minus one", "/faults", JSON, b'{"delay": -1}', BAD),
        ("a fault with an unknown field", "/faults", JSON, b'{"status": 500, "everything": true}', BAD),
        ("a fault that is a list", "/faults", JSON, b"[]", BAD),
        ("a fault nested deep", "/faults", JSON, text({"status": 500, "name": nested(150)}), BAD),
        ("log text as text/plain", "/logs/default/web/a", {"Content-Type": "text/plain"}, b"\xff\xfe", UNSUPPORTED),
        ("log text as a form", "/logs/default/web/a", {"Content-Type": "application/x-www-form-urlencoded"},
         b"text=a", UNSUPPORTED),
        ("log text not UTF-8", "/logs/default/web/a", JSON, b'{"text": "\xff\xfe"}', BAD),
        ("log text a number", "/logs/default/web/a", JSON, b'{"text": 5}', BAD),
        ("restoring no snapshot", "/snapshots/99/restore", {}, b"", NOT_FOUND),
    ]
    # requests that change state carry the header the control API asks for; a web page's cannot
    cases = [Case(f"control: {name}", "POST", CONTROL + path, {**headers, **CONTROL_HEADER}, body, answer)
             for name, path, headers, body, answer in posts]
    cases += [
        Case("control: a reset without the control header", "POST", CONTROL + "/reset", {}, b"", FORBIDDEN),
        Case("control: a seed without the control header", "POST", CONTROL + "/seed", {"Content-Type": "text/plain"},
             b"apiVersion: v1\nkind: Pod\nmetadata: {name: planted}\nspec: {containers: [{name: a, image: b}]}\n",
             FORBIDDEN),
        Case("control: deleting no snapshot", "DELETE", CONTROL + "/snapshots/99", CONTROL_HEADER, b"", NOT_FOUND),
        Case("control: no such fault", "GET", CONTROL + "/faults/x", {}, b"", NOT_FOUND),
        Case("control: dumping no such resource", "GET", CONTROL + "/dump?resource=gizmos", {}, b"", NOT_FOUND),
        Case("control: no such operation", "GET", CONTROL + "/frobnicate", {}, b"", NOT_FOUND),
    ]
    return cases


CASES = yaml_cases() + json_cases() + patch_cases() + query_and_path_cases() + control_cases()
