"""PodTemplateSpec, as every workload kind holds one: its defaulting, validation, warnings and Table cells,
shared by Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs and ReplicationControllers."""
