"""admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (with its status) and
ValidatingAdmissionPolicyBinding: defaults, strategies, validation and Table columns (upstream
pkg/registry/admissionregistration/validatingadmissionpolicy*)."""

from __future__ import annotations

from fakeapi.kinds.admissionpolicy.strategy import BindingStrategy, PolicyStatusStrategy, PolicyStrategy
from fakeapi.kinds.admissionpolicy.table import BINDING_PRINTER, POLICY_PRINTER
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo

GROUP = "admissionregistration.k8s.io"
CATEGORIES = ("api-extensions",)

VALIDATING_ADMISSION_POLICY = Kind(
    ResourceInfo("validatingadmissionpolicies", "ValidatingAdmissionPolicy", namespaced=False,
                 singular="validatingadmissionpolicy", group=GROUP, categories=CATEGORIES,
                 returns_deleted_object=False,
                 subresources=(SubresourceInfo("status", "ValidatingAdmissionPolicy", STATUS_VERBS),),
                 definition="io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy"),
    PolicyStrategy(),
    {"status": PolicyStatusStrategy()},
    printer=POLICY_PRINTER,
)
VALIDATING_ADMISSION_POLICY_BINDING = Kind(
    ResourceInfo("validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", namespaced=False,
                 singular="validatingadmissionpolicybinding", group=GROUP, categories=CATEGORIES,
                 returns_deleted_object=False,
                 definition="io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding"),
    BindingStrategy(),
    printer=BINDING_PRINTER,
)
