"""ValidatingAdmissionPolicy (upstream's plugin of that name): policies bound to requests by their bindings,
their CEL validations run in-process, after validation and before validating webhooks."""
