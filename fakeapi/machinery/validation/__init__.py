"""Validation shared by every kind: ObjectMeta, names and value formats."""
