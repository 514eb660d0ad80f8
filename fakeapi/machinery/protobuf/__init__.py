"""Kubernetes objects in protobuf: the wire format read (`wire`), and a message walked by its kind's
compiled schema into the JSON a Go client would send (`message`)."""
