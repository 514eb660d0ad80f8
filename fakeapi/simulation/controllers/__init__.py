"""kube-controller-manager's controllers in the simulated cluster: the garbage collector and the workload,
service and disruption controllers, each an API client with its upstream user, field manager and events,
switchable as kube-controller-manager's `--controllers` flag switches them (`manager.ControllerManager`).

They keep informer-like caches of what they watch (`informers`), kept current from the store's changes, and
work as upstream's do: a change queues a sync of the object it concerns, the sync reads the caches and
writes through the API; whatever waits (a progress deadline, a back-off, a schedule) waits on the server
clock. Nothing polls: with nothing changing, they do nothing.
"""
