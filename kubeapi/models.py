"""What the Kubernetes API keeps of its own: deletions (so a watch can say an object went away) and
each object's managedFields."""

from __future__ import annotations

from django.db import models

from core.json_field import JSONField


class Tombstone(models.Model):
    """An object deleted through any door: its kind key, identity, last form and when it went."""

    kind_key = models.CharField(max_length=320, help_text="group/Kind, e.g. apps/Deployment")
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253)
    resource_version = models.BigIntegerField(db_index=True)
    document = JSONField()

    class Meta:
        indexes = [models.Index(fields=["kind_key", "resource_version"])]
        ordering = ["resource_version"]

    def __str__(self) -> str:
        return f"{self.kind_key} {self.namespace}/{self.name}@{self.resource_version}"


class ManagedFields(models.Model):
    """metadata.managedFields of one object written through this API: each manager's fields (FieldsV1),
    the operation (Apply or Update) and when. Kept here so every kind has them, whatever its model."""

    kind_key = models.CharField(max_length=320, help_text="group/Kind, e.g. apps/Deployment")
    namespace = models.CharField(max_length=253, blank=True)
    name = models.CharField(max_length=253)
    entries = JSONField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind_key", "namespace", "name"], name="kubeapi_managed_one")
        ]

    def __str__(self) -> str:
        return f"{self.kind_key} {self.namespace}/{self.name}"
