"""Kubernetes syntax, one implementation of each, pure: stdlib only, importable without Django."""
