"""apiextensions.k8s.io/v1 CustomResourceDefinition: defaulting, validation and strategy; the controller that
names, establishes and serves them is fakeapi.controllers.crd."""

from __future__ import annotations

from fakeapi.kinds.customresourcedefinition.schema import RuleCompiler, RuleContext
from fakeapi.kinds.customresourcedefinition.strategy import (
    CustomResourceDefinitionStatusStrategy,
    CustomResourceDefinitionStrategy,
)
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

GROUP = "apiextensions.k8s.io"
DEFINITION = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"


def custom_resource_definition_kind(compile_rules: RuleCompiler | None = None) -> Kind:
    return Kind(
        ResourceInfo("customresourcedefinitions", "CustomResourceDefinition", namespaced=False,
                     singular="customresourcedefinition", group=GROUP, short_names=("crd", "crds"),
                     categories=("api-extensions",),
                     subresources=(SubresourceInfo("status", "CustomResourceDefinition", STATUS_VERBS),),
                     returns_deleted_object=False, definition=DEFINITION),
        CustomResourceDefinitionStrategy(compile_rules),
        {"status": CustomResourceDefinitionStatusStrategy(compile_rules)},
    )


def compile_schema_rules(schema: JSON, path: str, context: RuleContext) -> list[FieldError]:
    """The CEL rules of a schema node compiled (the CEL runtime loads with the first CRD that has rules)."""
    from fakeapi.kinds.customresourcedefinition import rules

    return rules.compile_schema_rules(schema, path, context)


CUSTOM_RESOURCE_DEFINITION = custom_resource_definition_kind(compile_schema_rules)
