"""The generic registry: the create, update and delete pipelines over a store and a kind's strategy."""
