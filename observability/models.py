"""Observability's rows: alerts, silences, receivers and deliveries."""

from __future__ import annotations

from datetime import datetime

from django.db import models
from django.utils.translation import gettext_lazy as _

from core.json_field import JSONField


class AlertState(models.TextChoices):
    PENDING = "pending", _("Pending")
    FIRING = "firing", _("Firing")
    RESOLVED = "resolved", _("Resolved")


ACTIVE_STATES = (AlertState.PENDING, AlertState.FIRING)


class Alert(models.Model):
    """One alert instance: a rule and a label set, from pending through firing to resolved."""

    rule = models.CharField(max_length=64)
    fingerprint = models.CharField(max_length=32)
    labels = JSONField(default=dict)
    annotations = JSONField(default=dict)
    state = models.CharField(max_length=8, choices=AlertState.choices, default=AlertState.PENDING)
    value = models.FloatField(null=True)
    active_since = models.DateTimeField()
    fired_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    last_evaluated = models.DateTimeField()

    class Meta:
        ordering = ["-active_since", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["fingerprint"],
                condition=models.Q(state__in=["pending", "firing"]),
                name="alert_one_active_per_fingerprint",
            )
        ]
        indexes = [models.Index(fields=["state", "rule"])]

    def __str__(self) -> str:
        return f"{self.rule} {self.labels} ({self.state})"


class Silence(models.Model):
    """Mutes notifications of every alert whose labels match all its matchers, until it ends."""

    matchers = JSONField(_("matchers"), default=dict)
    comment = models.CharField(_("comment"), max_length=500)
    created_by = models.CharField(_("created by"), max_length=150)
    starts_at = models.DateTimeField(_("starts at"))
    ends_at = models.DateTimeField(_("ends at"))

    class Meta:
        ordering = ["-ends_at", "-id"]

    def __str__(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in sorted(self.matchers.items()))

    def matches(self, labels: dict[str, str]) -> bool:
        return all(labels.get(key) == value for key, value in self.matchers.items())

    def is_active(self, now: datetime) -> bool:
        return self.starts_at <= now < self.ends_at


class ReceiverKind(models.TextChoices):
    WEBHOOK = "webhook", _("Webhook")
    EMAIL = "email", _("E-mail")


class Receiver(models.Model):
    """Where notifications go: an Alertmanager-compatible webhook or a list of e-mail addresses."""

    name = models.CharField(_("name"), max_length=64, unique=True)
    kind = models.CharField(_("kind"), max_length=8, choices=ReceiverKind.choices)
    url = models.URLField(_("webhook URL"), max_length=2048, blank=True)
    emails = JSONField(_("e-mail addresses"), default=list, blank=True)
    send_resolved = models.BooleanField(_("send resolved"), default=True)
    enabled = models.BooleanField(_("enabled"), default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def target(self) -> str:
        return self.url if self.kind == ReceiverKind.WEBHOOK else ", ".join(self.emails)


class DeliveryState(models.TextChoices):
    PENDING = "pending", _("Pending")
    SENT = "sent", _("Sent")
    FAILED = "failed", _("Failed")


class Delivery(models.Model):
    """One notification of one alert transition to one receiver, with how its sending went."""

    alert = models.ForeignKey(Alert, on_delete=models.CASCADE, related_name="deliveries")
    receiver = models.ForeignKey(Receiver, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=8, choices=AlertState.choices)  # firing or resolved
    payload = JSONField(default=dict)
    state = models.CharField(max_length=8, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    response_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["state", "updated"])]

    def __str__(self) -> str:
        return f"{self.alert.rule} {self.status} → {self.receiver.name}: {self.state}"
