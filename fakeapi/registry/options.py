"""Write options (dryRun, fieldManager, fieldValidation, force) and DeleteOptions, parsed and checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.errors import BadRequest, Invalid
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.admission.request import RequestContext


def manager_from_user_agent(user_agent: str) -> str:
    """Upstream's default field manager: the User-Agent up to the first '/' (at most 128 chars)."""
    return user_agent.split("/", 1)[0][:128]


FIELD_VALIDATION = ("Strict", "Warn", "Ignore")


@dataclass
class WriteOptions:
    dry_run: bool = False
    field_manager: str | None = None
    field_validation: str = "Warn"
    force: bool = False
    warnings: list[str] = field(default_factory=list)
    # the body's strict decoding errors when it repeats a key (they replace the unknown fields the
    # decode finds); None when no key repeats
    strict_errors: list[str] | None = None
    user: UserInfo | None = None  # who asked (None: the server itself), for CSRs and RBAC's escalation checks
    admission: RequestContext | None = None  # a client's request, for admission webhooks and policies

    @classmethod
    def from_request(cls, query: Mapping[str, str], user_agent: str) -> WriteOptions:
        """The options of a write; with no fieldManager, upstream names the manager after the User-Agent."""
        options = cls.from_query(query) if query else cls()  # most writes send no query
        if options.field_manager is None and user_agent:
            options.field_manager = manager_from_user_agent(user_agent)
        return options

    @classmethod
    def from_query(cls, query: Mapping[str, str], dry_run_values: list[str] | None = None) -> WriteOptions:
        dry_run = _dry_run(dry_run_values if dry_run_values is not None else _all(query, "dryRun"))
        validation = query.get("fieldValidation", "") or "Warn"
        if validation not in FIELD_VALIDATION:
            raise BadRequest(
                f'fieldValidation must be one of "Ignore", "Warn", or "Strict", got "{validation}"'
            )
        manager = query.get("fieldManager") or None
        if manager is not None and len(manager) > 128:
            raise Invalid("PatchOptions", "", [fe.too_long("fieldManager", 128)])
        force = query.get("force", "false").lower() == "true"
        return cls(dry_run=dry_run, field_manager=manager, field_validation=validation, force=force)


def _all(query: Mapping[str, str], key: str) -> list[str]:
    getall = getattr(query, "getall", None)
    if getall is not None:
        values: list[str] = getall(key, [])
        return values
    value = query.get(key)
    return [value] if value is not None else []


def _dry_run(values: list[str]) -> bool:
    for value in values:
        if value != "All":
            raise BadRequest(f'Invalid dryRun value: "{value}"; supported values: "All"')
    return bool(values)


PROPAGATION = ("Orphan", "Background", "Foreground")


@dataclass
class DeleteOptions:
    grace_period_seconds: int | None = None
    uid: str | None = None
    resource_version: str | None = None
    propagation_policy: str | None = None
    orphan_dependents: bool | None = None
    dry_run: bool = False
    warnings: list[str] = field(default_factory=list)  # answered in Warning headers
    admission: RequestContext | None = None  # a client's request, for admission webhooks and policies

    @classmethod
    def parse(cls, body: Any, query: Mapping[str, str]) -> DeleteOptions:
        """DeleteOptions from the JSON body, overridden by query parameters, as upstream merges them."""
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise BadRequest("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: "
                             "json: cannot unmarshal into Go value of type v1.DeleteOptions")
        errors: list[fe.FieldError] = []
        grace = body.get("gracePeriodSeconds")
        if "gracePeriodSeconds" in query:
            grace = _int_query(query, "gracePeriodSeconds")
        if grace is not None and (isinstance(grace, bool) or not isinstance(grace, int)):
            raise BadRequest('DeleteOptions in version "v1" cannot be handled as a DeleteOptions: json: '
                             "cannot unmarshal into Go struct field DeleteOptions.gracePeriodSeconds of type int64")
        preconditions = body.get("preconditions") or {}
        if not isinstance(preconditions, dict):
            raise BadRequest("DeleteOptions in version \"v1\" cannot be handled as a DeleteOptions: "
                             "json: cannot unmarshal into Go struct field DeleteOptions.preconditions")
        propagation = query.get("propagationPolicy", body.get("propagationPolicy"))
        orphan = body.get("orphanDependents")
        if "orphanDependents" in query:
            orphan = query["orphanDependents"].lower() == "true"
        if propagation is not None and propagation not in PROPAGATION:
            errors.append(fe.not_supported("propagationPolicy", propagation, list(PROPAGATION)))
        if propagation is not None and orphan is not None:
            errors.append(fe.invalid("propagationPolicy", propagation,
                                     "orphanDependents and deletionPropagation cannot be both set"))
        dry_run_values = _all(query, "dryRun") or body.get("dryRun") or []
        if not isinstance(dry_run_values, list):
            dry_run_values = [dry_run_values]
        for value in dry_run_values:
            if value != "All":
                errors.append(fe.not_supported("dryRun", value, ["All"]))
        if errors:
            raise Invalid("DeleteOptions", "", errors)
        return cls(
            grace_period_seconds=grace,
            uid=preconditions.get("uid"),
            resource_version=preconditions.get("resourceVersion"),
            propagation_policy=propagation,
            orphan_dependents=orphan,
            dry_run=bool(dry_run_values),
        )


def _int_query(query: Mapping[str, str], key: str) -> int:
    try:
        return int(query[key])
    except ValueError:
        raise BadRequest(f'couldn\'t parse "{key}": strconv.ParseInt: parsing "{query[key]}": invalid syntax') from None
