"""Policy rules matched against request attributes (upstream's rbac.RuleAllows): verbs, API groups,
resources (`*`, `pods/exec`, `*/scale`), resource names, and non-resource URLs (`*` suffixes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fakeapi.machinery.types import JSON
from fakeapi.registry.authorization.attributes import Attributes

ALL = "*"


@dataclass(frozen=True, slots=True)
class Rule:
    """A PolicyRule, its lists as sets."""

    verbs: frozenset[str]
    api_groups: frozenset[str]
    resources: frozenset[str]
    resource_names: frozenset[str]
    urls: tuple[str, ...]

    @classmethod
    def of(cls, rule: JSON) -> Rule:
        return cls(frozenset(_strings(rule.get("verbs"))), frozenset(_strings(rule.get("apiGroups"))),
                   frozenset(_strings(rule.get("resources"))), frozenset(_strings(rule.get("resourceNames"))),
                   tuple(_strings(rule.get("nonResourceURLs"))))

    def allows(self, attrs: Attributes) -> bool:
        if attrs.verb not in self.verbs and ALL not in self.verbs:
            return False
        if not attrs.resource_request:
            return any(url == ALL or url == attrs.path or (url.endswith("*") and attrs.path.startswith(url[:-1]))
                       for url in self.urls)
        if attrs.api_group not in self.api_groups and ALL not in self.api_groups:
            return False
        if not self._resource_matches(attrs):
            return False
        return not self.resource_names or attrs.name in self.resource_names

    def _resource_matches(self, attrs: Attributes) -> bool:
        resources = self.resources
        if ALL in resources or attrs.combined_resource in resources:
            return True
        return bool(attrs.subresource) and f"*/{attrs.subresource}" in resources


def compile_rules(rules: Iterable[JSON]) -> tuple[Rule, ...]:
    return tuple(Rule.of(rule) for rule in rules if isinstance(rule, dict))


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
