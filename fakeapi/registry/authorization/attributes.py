"""What a request asks to do, as upstream's authorizer.Attributes: the user, the verb, and either the
resource (group, resource, subresource, namespace, name) or the non-resource path."""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.machinery.users import UserInfo


@dataclass(frozen=True, slots=True)
class Attributes:
    user: UserInfo
    verb: str  # a Kubernetes verb (get, list, watch, create...) or, for a non-resource path, the method lowercased
    resource_request: bool = True
    namespace: str = ""
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    path: str = ""  # the request's path (non-resource requests are authorized by it)

    @property
    def combined_resource(self) -> str:
        """`pods`, or `pods/exec` for a subresource."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource
