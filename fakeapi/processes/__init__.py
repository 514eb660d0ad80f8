"""What runs inside the simulated containers: the processes exec starts and containers' own commands, the
files they see, and what a port-forwarded connection reaches."""
