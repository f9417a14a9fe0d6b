"""Member clusters: registration, labels and label conventions, taints, health collection."""
