"""The /version answer: the v1.32 line, so kubectl's dispatcher picks kubectl 1.32."""

from __future__ import annotations

from fakeapi.machinery.types import JSON

VERSION: JSON = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-fakeapi",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}
