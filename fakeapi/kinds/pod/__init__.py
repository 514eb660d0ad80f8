"""core/v1 Pod: schema, defaults, QoS class, strategies (pod, status, resize), validation and Table columns."""
