"""App configuration for scheduling: cluster events feed the dirty-binding queue."""

from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "scheduling"

    def ready(self) -> None:
        from scheduling import cluster_events

        cluster_events.connect()
