"""Drafts: a policy as its author last saved it in the editor, stored but not applied."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from core.json_field import JSONField


class PolicyDraft(models.Model):
    """One draft per policy identity; applying the policy removes its draft."""

    kind = models.CharField(max_length=40)
    namespace = models.CharField(max_length=63, blank=True)
    name = models.CharField(max_length=253)
    document = JSONField(help_text="The whole policy document as the editor holds it.")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "namespace", "name"], name="policy_draft_identity")
        ]
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return f"draft {self.kind} {self.namespace + '/' if self.namespace else ''}{self.name}"
