"""Looking into the member clusters, read-only: a workload across clusters, pod logs, drift."""
