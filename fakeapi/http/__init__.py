"""The HTTP layer: routes, guarded handlers, negotiation, discovery, watch streaming and the control API."""
