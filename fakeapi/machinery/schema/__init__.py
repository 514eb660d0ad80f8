"""The schemas of the API's kinds, compiled from the Kubernetes OpenAPI definitions kept as data."""
