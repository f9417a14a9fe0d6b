"""Observability: Prometheus metrics, alert rules and their export, built-in alerting, the network check."""
