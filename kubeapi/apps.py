"""The kubeapi app: its deletion records start listening to the models when Django is ready."""

from __future__ import annotations

from django.apps import AppConfig


class KubeapiConfig(AppConfig):
    name = "kubeapi"
    verbose_name = "Kubernetes API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from kubeapi import tombstones

        tombstones.connect()
