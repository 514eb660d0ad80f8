"""CertificateSigningRequest strategies (upstream pkg/registry/certificates/certificates/strategy.go): a
create records who asked (spec.username, uid, groups, extra) and starts with no status; an update changes
metadata only; /status sets the certificate and conditions other than Approved and Denied; /approval sets
the conditions only. Condition times the client leaves out are filled in, as upstream's
populateConditionTimestamps does."""

from __future__ import annotations

from datetime import UTC, datetime

from fakeapi.kinds.certificatesigningrequest.validation import APPROVED, DENIED, validate_csr
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.clock import rfc3339
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo


class CertificateSigningRequestStrategy(Strategy):

    def set_requesting_user(self, obj: JSON, user: UserInfo) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        for key in ("username", "uid", "groups", "extra"):
            spec.pop(key, None)
        spec.update(user.to_json())  # the same fields, left out when empty

    def prepare_for_create(self, obj: JSON) -> None:
        obj.pop("status", None)  # users cannot create pre-approved requests

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_csr(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = copy_json(old.get("spec") or {})
        _keep(new, old, "status")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_csr(new, old)


class CertificateSigningRequestStatusStrategy(CertificateSigningRequestStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = copy_json(old.get("spec") or {})
        status = new.get("status")
        if not isinstance(status, dict):
            status = new["status"] = {}
        # the approval conditions change through /approval only
        kept = [condition for condition in status.get("conditions") or []
                if not (isinstance(condition, dict) and condition.get("type") in (APPROVED, DENIED))]
        approval = [condition for condition in ((old.get("status") or {}).get("conditions") or [])
                    if isinstance(condition, dict) and condition.get("type") in (APPROVED, DENIED)]
        if kept or approval:
            status["conditions"] = copy_json(approval) + kept
        else:
            status.pop("conditions", None)
        _fill_condition_times(new, old)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_csr(new, old, certificate=True)


class CertificateSigningRequestApprovalStrategy(CertificateSigningRequestStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = copy_json(old.get("spec") or {})
        conditions = (new.get("status") or {}).get("conditions") if isinstance(new.get("status"), dict) else None
        status = copy_json(old.get("status") or {})
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
        if status:
            new["status"] = status
        else:
            new.pop("status", None)
        _fill_condition_times(new, old)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_csr(new, old, approval=True)


def _keep(new: JSON, old: JSON, key: str) -> None:
    if key in old:
        new[key] = copy_json(old[key])
    else:
        new.pop(key, None)


def _fill_condition_times(new: JSON, old: JSON) -> None:
    """A condition without lastUpdateTime gets now; one without lastTransitionTime keeps the transition time
    of the stored condition of its type and status, else now. (The system clock: strategies see no other.)"""
    now = rfc3339(datetime.now(UTC))
    old_conditions = [condition for condition in ((old.get("status") or {}).get("conditions") or [])
                      if isinstance(condition, dict)]
    for condition in (new.get("status") or {}).get("conditions") or []:
        if not isinstance(condition, dict):
            continue
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if not condition.get("lastTransitionTime"):
            condition["lastTransitionTime"] = next(
                (previous["lastTransitionTime"] for previous in old_conditions
                 if previous.get("type") == condition.get("type") and previous.get("status") == condition.get("status")
                 and previous.get("lastTransitionTime")), now)
