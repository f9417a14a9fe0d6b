"""karmada-ui: a Karmada-style multi-cluster control plane and dashboard."""

from karmada_ui.celery import app as celery_app

__all__ = ("celery_app",)
