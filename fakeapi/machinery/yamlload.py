"""YAML to JSON values as kube-apiserver reads YAML (sigs.k8s.io/yaml over go-yaml v2), within bounds.

PyYAML builds an aliased node once and shares it, so a "billion laughs" document loads at once and only
explodes when it is encoded. go-yaml decodes every alias again and refuses a document whose alias
expansions outweigh the rest (the fix for CVE-2019-11253): `_check_expansion` walks the composed node
graph as go-yaml decodes it, so the same documents are refused, and holds the expanded document to the
body size limit. Nesting is held to `limits.MAX_DEPTH`.

The values are plain JSON, as YAMLToJSON leaves them: map keys become strings, timestamps stay the text
written (go-yaml's choice for untyped values), integers beyond 64 bits become floats, and `.inf` and `.nan`
are refused as Go's json.Marshal refuses them.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from fakeapi.machinery.errors import BadRequest, RequestEntityTooLarge
from fakeapi.machinery.limits import MAX_DEPTH, nesting_error

_INT64_MIN = -(1 << 63)
_UINT64_LIMIT = 1 << 64  # go-yaml keeps integers up to uint64, beyond that they are floats
_STR_TAG = "tag:yaml.org,2002:str"


class _NotJSON(Exception):
    """A YAML value JSON cannot hold (go-yaml's or json.Marshal's message)."""


def load_yaml(text: str | bytes, max_bytes: int | None) -> Any:
    """The one document in `text` (None when empty); BadRequest or RequestEntityTooLarge as upstream
    answers a bad document. `max_bytes` bounds the document's JSON size, aliases expanded."""
    loader = _loader_class()(text)
    try:
        with _as_bad_request():
            node = loader.get_single_node()
            return None if node is None else _value(loader, node, max_bytes)
    finally:
        loader.dispose()


def load_yaml_all(text: str | bytes, max_bytes: int | None) -> list[Any]:
    """Every document in `text` (an empty one is None), each within the bounds of `load_yaml`."""
    loader = _loader_class()(text)
    try:
        with _as_bad_request():
            documents: list[Any] = []
            while loader.check_node():
                documents.append(_value(loader, loader.get_node(), max_bytes))
            return documents
    finally:
        loader.dispose()


def _value(loader: Any, node: Any, max_bytes: int | None) -> Any:
    _check_expansion(node, max_bytes)
    value = loader.construct_document(node)
    error = nesting_error(value)
    if error is not None:
        raise _NotJSON(f"yaml: {error}")
    return value


@contextmanager
def _as_bad_request() -> Iterator[None]:
    import yaml

    try:
        yield
    except yaml.YAMLError as error:
        raise BadRequest(f"error converting YAML to JSON: {_one_line(error)}") from None
    except _NotJSON as error:
        raise BadRequest(f"error converting YAML to JSON: {error}") from None
    except RecursionError:  # PyYAML's pure-Python composer, where libyaml is missing
        raise BadRequest(f"error converting YAML to JSON: yaml: exceeded max depth of {MAX_DEPTH}") from None


def _one_line(error: Exception) -> str:
    """PyYAML's error on one line, as go-yaml words it: `yaml: line 2: mapping values are not allowed here`
    (PyYAML's own text spans lines and quotes the source)."""
    mark, problem = getattr(error, "problem_mark", None), getattr(error, "problem", None)
    if mark is None or problem is None:
        return "yaml: " + " ".join(str(error).split())
    return f"yaml: line {mark.line + 1}: {problem}"


def _allowed_alias_ratio(decoded: int) -> float:
    """go-yaml's allowedAliasRatio: 99% of the decoded nodes may be alias expansions in small
    documents, falling to 10% at 4 million nodes."""
    if decoded <= 400_000:
        return 0.99
    if decoded >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * (decoded - 400_000) / 3_600_000


def _check_expansion(root: Any, max_bytes: int | None) -> None:
    """Walk the node graph as go-yaml decodes it, expanding every alias again: refuse it as go-yaml
    does once alias expansions outweigh the allowed ratio, and once its JSON (estimated) passes
    `max_bytes`. A node met again is an alias: its first meeting, in document order, is its anchor."""
    import yaml

    decoded = aliased = size = 0
    seen: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, in_alias = stack.pop()
        decoded += 1
        if id(node) in seen:
            in_alias = True
        else:
            seen.add(id(node))
        if in_alias:
            aliased += 1
            if aliased > 100 and decoded > 1000 and aliased / decoded > _allowed_alias_ratio(decoded):
                raise _NotJSON("yaml: document contains excessive aliasing")
        if isinstance(node, yaml.ScalarNode):
            size += len(node.value) + (3 if node.tag == _STR_TAG else 1)  # quotes, separator
        else:
            size += 2
            children = node.value if isinstance(node, yaml.SequenceNode) else \
                [item for pair in node.value for item in pair]
            stack.extend((child, in_alias) for child in reversed(children))
        if max_bytes is not None and size > max_bytes:
            raise RequestEntityTooLarge(f"Request entity too large: limit is {max_bytes}")


@cache
def _loader_class() -> Any:
    """A safe loader (libyaml's where installed) whose values are plain JSON. Built on first use:
    importing PyYAML slows every start, and most sessions send JSON."""
    import yaml
    from yaml.constructor import SafeConstructor

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class JSONValuesLoader(base):  # type: ignore[valid-type,misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            if not isinstance(node, yaml.MappingNode):
                raise _NotJSON(f"yaml: cannot decode a {node.id} as a map")
            self.flatten_mapping(node)  # merge keys (<<)
            # keys become text before they meet: YAMLToJSON keeps 1 and true apart, a dict would not
            return {_key_text(self.construct_object(key, deep)): self.construct_object(value, deep)
                    for key, value in node.value}

        def construct_go_int(self, node: Any) -> int | float | str:
            value: int = self.construct_yaml_int(node)
            if _INT64_MIN <= value < _UINT64_LIMIT:
                return value
            try:
                return float(value)
            except OverflowError:  # go-yaml's ParseFloat fails too, and the text stays a string
                return str(node.value)

        def construct_go_float(self, node: Any) -> float:
            value: float = self.construct_yaml_float(node)
            if not math.isfinite(value):
                raise _NotJSON(f"json: unsupported value: {_go_float_text(value)}")
            return value

        def construct_text(self, node: Any) -> str:
            return str(node.value)

        def construct_binary_text(self, node: Any) -> str:
            data: bytes = self.construct_yaml_binary(node)
            return data.decode(errors="replace")  # as json.Marshal writes invalid UTF-8

    JSONValuesLoader.add_constructor("tag:yaml.org,2002:int", JSONValuesLoader.construct_go_int)
    JSONValuesLoader.add_constructor("tag:yaml.org,2002:float", JSONValuesLoader.construct_go_float)
    JSONValuesLoader.add_constructor("tag:yaml.org,2002:timestamp", JSONValuesLoader.construct_text)
    JSONValuesLoader.add_constructor("tag:yaml.org,2002:binary", JSONValuesLoader.construct_binary_text)
    # go-yaml has no sets or ordered maps: they are the mapping or sequence they are written as
    JSONValuesLoader.add_constructor("tag:yaml.org,2002:set", SafeConstructor.construct_yaml_map)
    JSONValuesLoader.add_constructor("tag:yaml.org,2002:omap", SafeConstructor.construct_yaml_seq)
    JSONValuesLoader.add_constructor("tag:yaml.org,2002:pairs", SafeConstructor.construct_yaml_seq)
    return JSONValuesLoader


def _key_text(key: Any) -> str:
    """A map key as YAMLToJSON writes it."""
    if type(key) is str:
        return key
    if type(key) is bool:
        return "true" if key else "false"
    if type(key) is int or type(key) is float:  # (never .inf or .nan: those are refused as values)
        return repr(key)
    raise _NotJSON(f"unsupported map key of type: {_go_type_name(key)}")


def _go_float_text(value: float) -> str:
    return "NaN" if math.isnan(value) else "+Inf" if value > 0 else "-Inf"


def _go_type_name(value: Any) -> str:
    return "%!s(<nil>)" if value is None else type(value).__name__
