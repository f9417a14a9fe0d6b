"""App configuration for core: the role groups are created after every migrate."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "karmada-ui core"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from core import roles

        post_migrate.connect(roles.ensure_role_groups, sender=self)
