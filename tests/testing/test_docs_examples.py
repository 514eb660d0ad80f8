"""Runs the examples of docs/testing-controllers.md: each Python block's `test_*` functions are tests here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "testing-controllers.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _examples() -> dict[str, Any]:
    """The test functions of every block, each block executed in its own namespace (as its own file)."""
    tests: dict[str, Any] = {}
    text = GUIDE.read_text()
    for match in _BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 2
        source = "\n" * (line - 1) + match.group(1)  # tracebacks point at the guide's own lines
        if "def test_" not in source:
            continue  # a signature or a fragment, not a test file
        namespace: dict[str, Any] = {"__name__": f"guide_line_{line}"}
        exec(compile(source, str(GUIDE), "exec"), namespace)
        for name, value in namespace.items():
            if name.startswith("test_") and callable(value):
                assert name not in tests, f"two examples in the guide are called {name}"
                tests[name] = value
    return tests


EXAMPLES = _examples()
globals().update(EXAMPLES)


def test_the_guide_has_examples_for_every_client() -> None:
    sources = "".join(match.group(1) for match in _BLOCK.finditer(GUIDE.read_text()))
    clients = ("from kubernetes import client", "from kubernetes_asyncio import client", "from lightkube")
    for client in clients:
        assert client in sources
    assert len(EXAMPLES) >= 10
