"""core/v1 Event: schema, strategy, validation and Table columns."""
