"""Template filters of the cluster pages."""
