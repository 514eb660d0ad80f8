"""What the workload kinds share: their strategies' generation and status rules, the DNS-label name
warning, and apps validation helpers (int-or-percent, non-negative counts, status replica checks)."""
