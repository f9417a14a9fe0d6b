"""The Django admin of core: the audit log, to read and search only (entries are never changed)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from core.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ("created_at", "username", "action", "object_kind", "object_namespace", "object_name")
    list_filter = ("action", "object_kind")
    search_fields = ("username", "object_name", "object_namespace", "summary")
    date_hierarchy = "created_at"
    readonly_fields = [field.name for field in AuditEntry._meta.fields]
    actions = None  # no bulk delete

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # entries come from the changes themselves, never typed in

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
