"""Policy and binding Table columns: upstream v1.32 `printValidatingAdmissionPolicy` and
`printValidatingAdmissionPolicyBinding`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list


def _age(meta: JSON, now: datetime) -> Any:
    created = meta.get("creationTimestamp")
    return age(created, now) if isinstance(created, str) else "<unknown>"


def _policy_cells(obj: JSON, now: datetime) -> list[Any]:
    meta, spec = as_dict(obj.get("metadata")), as_dict(obj.get("spec"))
    param_kind = "<unset>"
    if isinstance(spec.get("paramKind"), dict):
        param_kind = f"{spec['paramKind'].get('apiVersion', '')}/{spec['paramKind'].get('kind', '')}"
    return [meta.get("name", ""), len(as_list(spec.get("validations"))), param_kind, _age(meta, now)]


def _binding_cells(obj: JSON, now: datetime) -> list[Any]:
    meta, spec = as_dict(obj.get("metadata")), as_dict(obj.get("spec"))
    param = "<unset>"
    ref = spec.get("paramRef")
    if isinstance(ref, dict):
        if ref.get("name"):
            param = f"{ref.get('namespace') or '*'}/{ref['name']}"
        elif isinstance(ref.get("selector"), dict):
            labels = as_dict(ref["selector"].get("matchLabels"))
            param = ",".join(f"{key}={value}" for key, value in sorted(labels.items()))
    return [meta.get("name", ""), spec.get("policyName", ""), param, _age(meta, now)]


POLICY_PRINTER = Printer(
    (NAME_COLUMN,
     Column("Validations", "integer", "", 0, "Validations indicates the number of validation rules defined in this "
            "configuration"),
     Column("ParamKind", "string", "", 0, "ParamKind specifies the kind of resources used to parameterize this "
            "policy"),
     AGE_COLUMN),
    _policy_cells,
)
BINDING_PRINTER = Printer(
    (NAME_COLUMN,
     Column("PolicyName", "string", "", 0, "PolicyName indicates the policy definition which the policy binding "
            "binded to"),
     Column("ParamRef", "string", "", 0, "ParamRef indicates the param resource which sets the configration param"),
     AGE_COLUMN),
    _binding_cells,
)
