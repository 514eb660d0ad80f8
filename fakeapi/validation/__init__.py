"""Upstream-faithful validation of Pods, Namespaces and ObjectMeta, returning lists of FieldError.

Messages, field paths and cause order follow kube-apiserver v1.32 (`pkg/apis/core/validation`
and apimachinery's `pkg/api/validation`, `pkg/util/validation`). Entry points:
`pod.validate_pod_create`, `pod.validate_pod_update`, `pod.validate_pod_status_update`,
`pod.validate_pod_resize`, `pod.warnings_on_create`, `meta.validate_object_meta`,
`meta.validate_object_meta_update`, `meta.validate_common_update`,
`namespace.validate_namespace`, `namespace.validate_namespace_update`.
"""
