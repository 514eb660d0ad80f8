"""Custom resources' schemas (a CRD's openAPIV3Schema) as apiextensions-apiserver applies them: validation with
kube-openapi's messages, pruning of unknown fields, defaulting, list types."""
