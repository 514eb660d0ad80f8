"""Pod validation as upstream's pkg/apis/core/validation: create, update, status and resize."""
