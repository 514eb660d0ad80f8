"""ValidateCustomResourceDefinition (upstream's apiextensions validation.go) on the v1 object.

Upstream validates the internal form, into which v1 folds per-version schemas, subresources and printer
columns that are the same in every version: their errors are then reported under `spec.validation`,
`spec.subresources` and `spec.additionalPrinterColumns`, as here.
"""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.customresourcedefinition.schema import RuleCompiler, validate_version_schema
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta

PRINTER_COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"]
PRINTER_COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"]
CONVERSION_REVIEW_VERSIONS = ("v1", "v1beta1")
APPROVAL_ANNOTATION = "api-approved.kubernetes.io"
MAX_SELECTABLE_FIELDS = 8


def validate_crd(crd: JSON, compile_rules: RuleCompiler | None = None) -> list[FieldError]:
    spec: JSON = crd.get("spec") or {}
    meta: JSON = crd["metadata"]
    required_name = f"{(spec.get('names') or {}).get('plural', '')}.{spec.get('group', '')}"

    def name_rule(name: str, prefix: bool) -> list[str]:
        found = names.name_is_dns_subdomain(name, prefix)
        if name != required_name:
            found.append('must be spec.names.plural+"."+spec.group')
        return found

    errors = validate_object_meta(meta, False, "metadata", name_rule, kube_finalizers=False)
    errors += validate_spec(spec, compile_rules)
    errors += validate_status(crd.get("status") or {})
    errors += validate_stored_versions(crd, "status.storedVersions")
    errors += _api_approval(crd, None)
    errors += _preserve_unknown_fields(crd, None)
    return errors


def validate_crd_update(new: JSON, old: JSON, compile_rules: RuleCompiler | None = None) -> list[FieldError]:
    spec: JSON = new.get("spec") or {}
    old_spec: JSON = old.get("spec") or {}
    errors = validate_spec(spec, compile_rules, _unchanged_schemas(spec, old_spec))
    established = any(c.get("type") == "Established" and c.get("status") == "True"
                      for c in (old.get("status") or {}).get("conditions") or () if isinstance(c, dict))
    if established:
        errors += _immutable(spec.get("scope"), old_spec.get("scope"), "spec.scope")
        errors += _immutable((spec.get("names") or {}).get("kind"), (old_spec.get("names") or {}).get("kind"),
                             "spec.names.kind")
    errors += _immutable(spec.get("group"), old_spec.get("group"), "spec.group")
    errors += _immutable((spec.get("names") or {}).get("plural"), (old_spec.get("names") or {}).get("plural"),
                         "spec.names.plural")
    errors += validate_status(new.get("status") or {})
    errors += validate_stored_versions(new, "status.storedVersions")
    errors += _api_approval(new, old)
    errors += _preserve_unknown_fields(new, old)
    return errors


def _unchanged_schemas(spec: JSON, old_spec: JSON) -> frozenset[str]:
    """The versions whose schema an update left as it was: their rules' costs are not checked again (upstream's
    suppressPerExpressionCost), so a CRD stored before a cost limit changed can still be updated."""
    def schemas(of: JSON) -> dict[str, Any]:
        return {str(version.get("name")): version.get("schema") for version in of.get("versions") or ()
                if isinstance(version, dict)}
    old_schemas = schemas(old_spec)
    return frozenset(name for name, schema in schemas(spec).items()
                     if name in old_schemas and old_schemas[name] == schema)


def _immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    return [] if new == old else [fe.invalid(path, new if new is not None else "", "field is immutable")]


def validate_status(status: JSON) -> list[FieldError]:
    return validate_names(status.get("acceptedNames") or {}, "status.acceptedNames")


def validate_stored_versions(crd: JSON, path: str) -> list[FieldError]:
    stored = (crd.get("status") or {}).get("storedVersions") or []
    if not stored:
        return [fe.invalid(path, _GoSlice(stored), "must have at least one stored version")]
    errors: list[FieldError] = []
    remaining = {version: index for index, version in enumerate(stored)}
    for version in (crd.get("spec") or {}).get("versions") or ():
        name = version.get("name")
        if version.get("storage") and name not in remaining:
            errors.append(fe.invalid(path, _GoSlice(stored), f"must have the storage version {name}"))
        remaining.pop(name, None)
    for version, index in remaining.items():
        errors.append(fe.invalid(f"{path}[{index}]", version, "must appear in spec.versions"))
    return errors


def _GoSlice(values: list[Any]) -> Any:  # noqa: N802 (a Go literal's name)
    from fakeapi.machinery.validation.values import go_string_slice

    return go_string_slice(str(value) for value in values)


def validate_names(names_: JSON, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for field in ("plural", "singular"):
        value = names_.get(field) or ""
        found = names.is_dns1035_label(value)
        if value and found:
            errors.append(fe.invalid(f"{path}.{field}", value, ",".join(found)))
    for field in ("kind", "listKind"):
        value = names_.get(field) or ""
        found = names.is_dns1035_label(value.lower())
        if value and found:
            errors.append(fe.invalid(f"{path}.{field}", value,
                                     "may have mixed case, but should otherwise match: " + ",".join(found)))
    for index, short in enumerate(names_.get("shortNames") or ()):
        found = names.is_dns1035_label(short)
        if found:
            errors.append(fe.invalid(f"{path}.shortNames[{index}]", short, ",".join(found)))
    kind = names_.get("kind") or ""
    if kind and kind == names_.get("listKind"):
        errors.append(fe.invalid(f"{path}.listKind", kind, "kind and listKind may not be the same"))
    for index, category in enumerate(names_.get("categories") or ()):
        found = names.is_dns1035_label(category)
        if found:
            errors.append(fe.invalid(f"{path}.categories[{index}]", category, ",".join(found)))
    return errors


def _folded(versions: list[JSON], field: str, empty: Any) -> Any:
    """The value every version gives `field`, when all give the same non-empty one (upstream then holds it at
    the top level), else None."""
    values = [version.get(field) for version in versions]
    if not values or any(value in (None, empty) for value in values):
        return None
    return values[0] if all(value == values[0] for value in values) else None


def validate_spec(spec: JSON, compile_rules: RuleCompiler | None,
                  unchanged: frozenset[str] = frozenset()) -> list[FieldError]:
    errors: list[FieldError] = []
    group = spec.get("group") or ""
    if not group:
        errors.append(fe.required("spec.group"))
    elif names.is_dns1123_subdomain(group):
        errors.append(fe.invalid("spec.group", group, ",".join(names.is_dns1123_subdomain(group))))
    elif len(group.split(".")) < 2:
        errors.append(fe.invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = spec.get("scope") or ""
    if not scope:
        errors.append(fe.required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        errors.append(fe.not_supported("spec.scope", scope, ["Cluster", "Namespaced"]))
    versions = [version for version in spec.get("versions") or () if isinstance(version, dict)]
    folded_schema = _folded(versions, "schema", {})
    folded_subresources = _folded(versions, "subresources", {})
    folded_columns = _folded(versions, "additionalPrinterColumns", [])
    if folded_schema is None or not isinstance(folded_schema.get("openAPIV3Schema"), dict):
        for index, version in enumerate(versions):
            if not isinstance((version.get("schema") or {}).get("openAPIV3Schema"), dict):
                errors.append(fe.required(f"spec.versions[{index}].schema.openAPIV3Schema", "schemas are required"))
    storage_count = 0
    seen: set[str] = set()
    unique = True
    any_status = any(isinstance((version.get("subresources") or {}).get("status"), dict) for version in versions)
    for index, version in enumerate(versions):
        at = f"spec.versions[{index}]"
        name = version.get("name") or ""
        storage_count += bool(version.get("storage"))
        if name in seen:
            unique = False
        seen.add(name)
        found = names.is_dns1035_label(name)
        if found:
            errors.append(fe.invalid(f"{at}.name", name, ",".join(found)))
        errors += _deprecation(version, at)
        status = isinstance((version.get("subresources") or {}).get("status"), dict)
        schema = (version.get("schema") or {}).get("openAPIV3Schema")
        if folded_schema is None and isinstance(schema, dict):
            errors += validate_version_schema(schema, status, f"{at}.schema", compile_rules, name in unchanged)
        if folded_subresources is None:
            errors += validate_subresources(version.get("subresources"), f"{at}.subresources")
        if folded_columns is None:
            for column_index, column in enumerate(version.get("additionalPrinterColumns") or ()):
                errors += validate_column(column, f"{at}.additionalPrinterColumns[{column_index}]")
        selectable = version.get("selectableFields") or []
        if selectable:
            errors += validate_selectable_fields(selectable, schema, f"{at}.selectableFields")
    if not unique:
        errors.append(fe.invalid("spec.versions", _versions_value(versions), "must contain unique version names"))
    if storage_count != 1:
        errors.append(fe.invalid("spec.versions", _versions_value(versions),
                                 "must have exactly one version marked as storage version"))
    names_ = spec.get("names") or {}
    for field in ("plural", "singular", "kind", "listKind"):
        if not names_.get(field):
            errors.append(fe.required(f"spec.names.{field}"))
    errors += validate_names(names_, "spec.names")
    if folded_schema is not None and isinstance(folded_schema.get("openAPIV3Schema"), dict):
        first = str(versions[0].get("name") or "") if versions else ""
        errors += validate_version_schema(folded_schema["openAPIV3Schema"], any_status, "spec.validation",
                                          compile_rules, first in unchanged)
    if folded_subresources is not None:
        errors += validate_subresources(folded_subresources, "spec.subresources")
    if folded_columns is not None:
        for column_index, column in enumerate(folded_columns):
            errors += validate_column(column, f"spec.additionalPrinterColumns[{column_index}]")
    conversion = spec.get("conversion") or {}
    if conversion.get("strategy") not in (None, "None") and spec.get("preserveUnknownFields") is True:
        errors.append(fe.invalid("spec.conversion.strategy", conversion.get("strategy"),
                                 "must be None if spec.preserveUnknownFields is true"))
    errors += validate_conversion(conversion, "spec.conversion")
    return errors


def _versions_value(versions: list[JSON]) -> Any:
    return versions


def _deprecation(version: JSON, at: str) -> list[FieldError]:
    warning = version.get("deprecationWarning")
    errors: list[FieldError] = []
    path = f"{at}.deprecationWarning"
    if not version.get("deprecated") and warning is not None:
        return [fe.invalid(path, warning, "can only be set for deprecated versions")]
    if warning is None:
        return []
    if len(warning) > 256:
        errors.append(fe.invalid(path, warning, "must be <= 256 characters long"))
    if not warning:
        errors.append(fe.invalid(path, warning, "must not be an empty string"))
    for index, char in enumerate(warning):
        if not char.isprintable():
            errors.append(fe.invalid(path, warning, "must only contain printable UTF-8 characters; non-printable "
                                                    f"character found at index {index}"))
            break
    return errors


def validate_subresources(subresources: Any, path: str) -> list[FieldError]:
    if not isinstance(subresources, dict) or not isinstance(subresources.get("scale"), dict):
        return []
    scale = subresources["scale"]
    errors: list[FieldError] = []
    for field, prefix, under in (("specReplicasPath", (".spec.",), "should be a json path under .spec"),
                                 ("statusReplicasPath", (".status.",), "should be a json path under .status")):
        value = scale.get(field) or ""
        if not value:
            errors.append(fe.required(f"{path}.scale.{field}"))
            continue
        simple = _simple_json_path(value, f"{path}.scale.{field}")
        if simple:
            errors += simple
        elif not value.startswith(prefix):
            errors.append(fe.invalid(f"{path}.scale.{field}", value, under))
    selector = scale.get("labelSelectorPath") or ""
    if selector:
        simple = _simple_json_path(selector, f"{path}.scale.labelSelectorPath")
        if simple:
            errors += simple
        elif not selector.startswith((".spec.", ".status.")):
            errors.append(fe.invalid(f"{path}.scale.labelSelectorPath", selector,
                                     "should be a json path under either .spec or .status"))
    return errors


def _simple_json_path(value: str, path: str) -> list[FieldError]:
    if not value:
        return [fe.invalid(path, value, "must not be empty")]
    if not value.startswith("."):
        return [fe.invalid(path, value, "must be a simple json path starting with .")]
    return []


def validate_column(column: Any, path: str) -> list[FieldError]:
    if not isinstance(column, dict):
        return []
    errors: list[FieldError] = []
    if not column.get("name"):
        errors.append(fe.required(f"{path}.name"))
    kind = column.get("type") or ""
    if not kind:
        errors.append(fe.required(f"{path}.type", "must be one of " + ",".join(PRINTER_COLUMN_TYPES)))
    elif kind not in PRINTER_COLUMN_TYPES:
        errors.append(fe.invalid(f"{path}.type", kind, "must be one of " + ",".join(PRINTER_COLUMN_TYPES)))
    fmt = column.get("format") or ""
    if fmt and fmt not in PRINTER_COLUMN_FORMATS:
        errors.append(fe.invalid(f"{path}.format", fmt, "must be one of " + ",".join(PRINTER_COLUMN_FORMATS)))
    json_path = column.get("jsonPath") or ""
    if not json_path:
        errors.append(fe.required(f"{path}.JSONPath"))
    else:
        errors += _simple_json_path(json_path, f"{path}.JSONPath")
    return errors


def validate_selectable_fields(fields: list[Any], schema: Any, path: str) -> list[FieldError]:
    from fakeapi.kinds.customresourcedefinition.schema import valid_field_path

    if not isinstance(schema, dict):
        return [fe.invalid(path, "", "selectableFields may only be set when version.schema.openAPIV3Schema is not "
                                     "included")]
    errors: list[FieldError] = []
    unique: set[str] = set()
    for index, field in enumerate(fields):
        at = f"{path}[{index}].jsonPath"
        json_path = (field or {}).get("jsonPath") or ""
        if not json_path:
            errors.append(fe.required(at))
            continue
        if not valid_field_path(schema, json_path):
            errors.append(fe.invalid(at, json_path, "is an invalid path: does not refer to a valid field"))
            continue
        if json_path.startswith(".metadata"):
            errors.append(fe.invalid(at, json_path, "must not point to fields in metadata"))
        if _schema_at(schema, json_path).get("type") not in ("string", "boolean", "integer"):
            errors.append(fe.invalid(at, json_path, "must point to a field of type string, boolean or integer. Enum "
                                                    "string fields and strings with formats are allowed."))
        if json_path in unique:
            errors.append(fe.duplicate(at, json_path))
        unique.add(json_path)
    if len(unique) > MAX_SELECTABLE_FIELDS:
        errors.append(fe.too_many(path, len(unique), MAX_SELECTABLE_FIELDS))
    return errors


def _schema_at(schema: JSON, json_path: str) -> JSON:
    node: Any = schema
    for name in json_path.strip(".").split("."):
        properties = node.get("properties") or {} if isinstance(node, dict) else {}
        node = properties.get(name, {})
    return node if isinstance(node, dict) else {}


def validate_conversion(conversion: JSON, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not conversion:
        return errors
    strategy = conversion.get("strategy") or ""
    if not strategy:
        errors.append(fe.required(f"{path}.strategy"))
    elif strategy not in ("None", "Webhook"):
        errors.append(fe.not_supported(f"{path}.strategy", strategy, ["None", "Webhook"]))
    webhook = conversion.get("webhook") or {}
    if strategy == "Webhook":
        config = webhook.get("clientConfig")
        if not isinstance(config, dict):
            errors.append(fe.required(f"{path}.webhookClientConfig", "required when strategy is set to Webhook"))
        elif (config.get("url") is None) == (config.get("service") is None):
            errors.append(fe.required(f"{path}.webhookClientConfig", "exactly one of url or service is required"))
        review_versions = webhook.get("conversionReviewVersions") or []
        if not review_versions:
            errors.append(fe.required(f"{path}.conversionReviewVersions"))
        elif not any(version in CONVERSION_REVIEW_VERSIONS for version in review_versions):
            errors.append(fe.invalid(f"{path}.conversionReviewVersions", _GoSlice(review_versions),
                                     "must include at least one of v1, v1beta1"))
    elif webhook:
        if webhook.get("clientConfig") is not None:
            errors.append(fe.forbidden(f"{path}.webhookClientConfig",
                                       "should not be set when strategy is not set to Webhook"))
        if webhook.get("conversionReviewVersions"):
            errors.append(fe.forbidden(f"{path}.conversionReviewVersions",
                                       "should not be set when strategy is not set to Webhook"))
    return errors


def _protected(group: str) -> bool:
    return group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))


def _api_approval(new: JSON, old: JSON | None) -> list[FieldError]:
    group = (new.get("spec") or {}).get("group") or ""
    if not _protected(group):
        return []
    state = _approval((new["metadata"].get("annotations") or {}).get(APPROVAL_ANNOTATION))
    if old is not None and _approval((old["metadata"].get("annotations") or {}).get(APPROVAL_ANNOTATION)) == state:
        return []
    path = f"metadata.annotations[{APPROVAL_ANNOTATION}]"
    if state == "missing":
        return [fe.required(path, f'protected groups must have approval annotation "{APPROVAL_ANNOTATION}", see '
                                  "https://github.com/kubernetes/enhancements/pull/1111")]
    if state == "invalid":
        value = new["metadata"]["annotations"][APPROVAL_ANNOTATION]
        return [fe.invalid(path, value, f'protected groups must have approval annotation "{APPROVAL_ANNOTATION}" '
                                        "with either a URL or a reason starting with \"unapproved\", see "
                                        "https://github.com/kubernetes/enhancements/pull/1111")]
    return []


def _approval(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, str) and (value.startswith("unapproved") or value.startswith(("http://", "https://"))):
        return "approved"
    return "invalid"


def _preserve_unknown_fields(new: JSON, old: JSON | None) -> list[FieldError]:
    if old is not None and (old.get("spec") or {}).get("preserveUnknownFields") is True:
        return []
    if (new.get("spec") or {}).get("preserveUnknownFields") is True:
        return [fe.invalid("spec.preserveUnknownFields", True, "cannot set to true, set "
                                                               "x-kubernetes-preserve-unknown-fields to true in "
                                                               "spec.versions[*].schema instead")]
    return []
