"""App configuration for observability: alerts follow a change of Ready at once, not at the next beat."""

from typing import Any

from django.apps import AppConfig


def _evaluate_soon(sender: Any, **_: Any) -> None:
    from observability.engine import evaluate_alerts_soon

    evaluate_alerts_soon()


class ObservabilityConfig(AppConfig):
    name = "observability"

    def ready(self) -> None:
        from clusters.signals import ready_changed

        ready_changed.connect(_evaluate_soon, dispatch_uid="observability.evaluate-on-ready-change")
