"""App configuration for the project package: roles, the demo command and the page chrome."""

from django.apps import AppConfig


class KarmadaUiConfig(AppConfig):
    name = "karmada_ui"
    verbose_name = "karmada-ui"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from karmada_ui import celery, roles

        post_migrate.connect(roles.ensure_role_groups, sender=self)
        celery.prepare_folder_broker()
