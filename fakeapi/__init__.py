"""fakeapi: an in-memory fake Kubernetes API server for pods that behaves like the real kube-apiserver."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__", "create_app"]


def __getattr__(name: str) -> object:
    # create_app is imported lazily so `import fakeapi` stays cheap (the CLI and the pytest plugin)
    if name == "create_app":
        from fakeapi.app import create_app

        return create_app
    raise AttributeError(name)
