"""Server-side Table output (meta.k8s.io Table) and its age formatting."""
