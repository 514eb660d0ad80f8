"""The marshmallow schemas of core/v1 Pod and every type under it."""
