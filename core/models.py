"""The audit log: one row per change made through the product."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditEntry(models.Model):
    """Who changed what, when, and how the placement moved because of it."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    username = models.CharField(max_length=150, blank=True, help_text="Kept when the user is deleted.")
    action = models.CharField(max_length=63)
    object_kind = models.CharField(max_length=63)
    object_namespace = models.CharField(max_length=253, blank=True)
    object_name = models.CharField(max_length=253)
    summary = models.TextField(blank=True)
    placement_delta = models.JSONField(
        default=dict,
        blank=True,
        help_text="{cluster: {before, after}} for every cluster whose replicas changed.",
    )

    class Meta:
        db_table = "karmada_ui_auditentry"  # the table predates this app
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.username or 'system'} {self.action} {self.object_kind} {self.object_name}"
