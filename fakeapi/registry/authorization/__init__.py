"""Authorization, as kube-apiserver's authorizers decide: who may do what (attributes), the modes that decide
it (AlwaysAllow, AlwaysDeny, Node, RBAC, tried in order as upstream's union authorizer), and upstream's
403 Forbidden text for a refusal."""
