"""CEL as Kubernetes uses it for x-kubernetes-validations: the cel-expr-python runtime (Google's cel-cpp) with
the Kubernetes function libraries (fakeapi.machinery.cel.libraries) and the cost limits."""
