"""core/v1 Namespace: schema, defaults, strategy, validation and Table columns."""
