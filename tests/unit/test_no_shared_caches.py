"""No cache is shared by the servers of one process: a memo belongs to an object an app builds."""

from __future__ import annotations

import ast
from pathlib import Path

import fakeapi
from fakeapi.cluster import build_api
from fakeapi.config import ServerConfig
from fakeapi.kinds.pod.strategy import PodStrategy

PACKAGE = Path(fakeapi.__file__).parent
CACHING_DECORATORS = {"lru_cache", "cache", "cached_property"}


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _takes_arguments(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = node.args
    return bool(arguments.posonlyargs or arguments.args or arguments.kwonlyargs or arguments.vararg
                or arguments.kwarg)


def test_no_function_or_method_caches_its_inputs() -> None:
    # a decorated module function, or method (one cache for every instance), would be shared by every
    # server; memos are built per object instead, e.g. `lru_cache(maxsize=...)(function)`. A function
    # without arguments may be cached: it builds a constant on first use (a loader class, say).
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _takes_arguments(node)
        and any(_decorator_name(d) in CACHING_DECORATORS for d in node.decorator_list)
    ]
    assert found == []


def test_two_servers_share_no_memo() -> None:
    first, second = build_api(ServerConfig()), build_api(ServerConfig())
    pods, other_pods = first.registry("pods"), second.registry("pods")
    assert pods.decoder is not other_pods.decoder
    assert pods.field_manager is not other_pods.field_manager
    assert isinstance(pods.strategy, PodStrategy) and isinstance(other_pods.strategy, PodStrategy)
    assert pods.strategy.memo is not None and pods.strategy.memo is not other_pods.strategy.memo
    status, other_status = first.subresource("pods", "status"), second.subresource("pods", "status")
    assert isinstance(status.strategy, PodStrategy) and isinstance(other_status.strategy, PodStrategy)
    assert status.strategy.memo is not other_status.strategy.memo
