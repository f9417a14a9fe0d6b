"""App configuration for clusters."""

from django.apps import AppConfig


class ClustersConfig(AppConfig):
    name = "clusters"
