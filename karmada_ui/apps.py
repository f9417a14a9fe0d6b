"""App configuration for the project package: the demo command, the page chrome and the Celery broker."""

from django.apps import AppConfig


class KarmadaUiConfig(AppConfig):
    name = "karmada_ui"
    verbose_name = "karmada-ui"

    def ready(self) -> None:
        from karmada_ui import celery

        celery.prepare_folder_broker()
