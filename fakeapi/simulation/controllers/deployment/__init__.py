"""The deployment controller: ReplicaSets named `<deployment>-<pod-template-hash>`, rollouts (RollingUpdate
within maxSurge and maxUnavailable, or Recreate), proportional scaling, the revision annotations and history,
pause and resume, the Available and Progressing conditions with progressDeadlineSeconds."""

from fakeapi.simulation.controllers.deployment.controller import DeploymentController

__all__ = ["DeploymentController"]
