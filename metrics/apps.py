"""App configuration for metrics."""

from django.apps import AppConfig


class MetricsConfig(AppConfig):
    name = "metrics"
