"""apps/v1 Deployment: defaults, strategies (deployment, status), validation, /scale and Table columns."""

from __future__ import annotations

from fakeapi.kinds.deployment.strategy import DEFINITION, DeploymentStatusStrategy, DeploymentStrategy
from fakeapi.kinds.deployment.table import DEPLOYMENT_PRINTER
from fakeapi.kinds.kind import SCALE_SUBRESOURCE, STATUS_VERBS, Kind, ResourceInfo, Scale, SubresourceInfo

DEPLOYMENT = Kind(
    ResourceInfo(
        "deployments", "Deployment", namespaced=True, singular="deployment", group="apps", short_names=("deploy",),
        categories=("all",), returns_deleted_object=False,
        subresources=(SCALE_SUBRESOURCE, SubresourceInfo("status", "Deployment", STATUS_VERBS)),
        definition=DEFINITION,
    ),
    DeploymentStrategy(),
    {"status": DeploymentStatusStrategy()},
    DEPLOYMENT_PRINTER,
    scale=Scale(label_selector_path=".spec.selector"),
)
