"""What admission knows of a client's request beyond the object: who sent it, its options as the API names
them, and the answers of the webhooks called for it so far (fakeapi.registry.admission.webhook).

A write is a synchronous pipeline, and a webhook is an HTTP call: when the pipeline reaches a webhook whose
answer it does not have, it stops (CallsPending, nothing written), the caller makes the calls, and the
pipeline runs again from the start with the answers, the server's random draws replayed so that the object
comes out the same. Writes without a request context (the server's own controllers) call no webhooks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo


@dataclass
class RequestContext:
    user: UserInfo
    options: JSON  # the fields of the CreateOptions, UpdateOptions or DeleteOptions an AdmissionReview carries
    answers: dict[str, Any] = field(default_factory=dict)  # webhook call key -> its outcome
    draws: list[Any] = field(default_factory=list)  # the server's random draws of the first run, replayed
    warnings: list[str] = field(default_factory=list)  # what webhooks and policies warned, for the answer
    audit_annotations: dict[str, str] = field(default_factory=dict)
    pending: list[Any] = field(default_factory=list)  # the calls the run stopped for


class CallsPending(Exception):
    """The pipeline stopped before calling webhooks; `context.pending` says which."""

    def __init__(self, context: RequestContext) -> None:
        super().__init__("admission webhooks to call")
        self.context = context
