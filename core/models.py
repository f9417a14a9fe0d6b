"""The audit log: one row per change made through the product, written once and never changed."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from core.json_field import JSONField


class AuditEntryImmutable(RuntimeError):
    """An audit entry was to be changed or deleted; entries are written once and kept as they are."""


class AuditQuerySet(models.QuerySet):
    """Reads and inserts only: bulk updates and deletes of the log are refused."""

    def update(self, **kwargs: Any) -> int:
        raise AuditEntryImmutable("audit entries cannot be changed")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AuditEntryImmutable("audit entries cannot be deleted")


class AuditEntry(models.Model):
    """Who changed what, when, the fields that changed (before/after) and how the placement moved."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    # The link goes when the user is deleted (the only change an entry ever takes); the name stays.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    username = models.CharField(max_length=150, blank=True, help_text="Kept when the user is deleted.")
    action = models.CharField(max_length=63)
    object_kind = models.CharField(max_length=63)
    object_namespace = models.CharField(max_length=253, blank=True)
    object_name = models.CharField(max_length=253)
    summary = models.TextField(blank=True)
    changes = JSONField(
        default=dict,
        blank=True,
        help_text="{field: {before, after}} for every field the change touched; secrets redacted.",
    )
    placement_delta = JSONField(
        default=dict,
        blank=True,
        help_text="{cluster: {before, after}} for every cluster whose replicas changed.",
    )

    objects = AuditQuerySet.as_manager()

    class Meta:
        db_table = "karmada_ui_auditentry"  # the table predates this app
        ordering = ["-created_at", "-id"]
        # The log's pages walk this index newest first (core.audit_log): no scan of the whole table.
        indexes = [models.Index(fields=["created_at", "id"], name="audit_created_id")]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.username or 'system'} {self.action} {self.object_kind} {self.object_name}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AuditEntryImmutable("audit entries cannot be changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AuditEntryImmutable("audit entries cannot be deleted")
