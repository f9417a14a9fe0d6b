"""Notifications: Alertmanager-compatible webhook payloads and e-mails, queued per receiver on each
firing or resolved transition, sent with a timeout, retried, and every attempt's outcome recorded."""

from __future__ import annotations

import json
import logging
import smtplib
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from observability.models import Alert, AlertState, Delivery, DeliveryState, Receiver, ReceiverKind, Silence

log = logging.getLogger(__name__)

ZERO_TIME = "0001-01-01T00:00:00Z"  # Alertmanager's "not ended yet"
STALE = timedelta(minutes=2)  # a pending delivery untouched this long lost its task; send it again


class SendFailed(Exception):
    """Sending failed; `retry` says whether trying again may help (network trouble, 5xx, 429)."""

    def __init__(self, message: str, retry: bool, code: int | None = None) -> None:
        super().__init__(message)
        self.retry = retry
        self.code = code


def rfc3339(moment: datetime | None) -> str:
    if moment is None:
        return ZERO_TIME
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def alerts_url() -> str:
    return settings.ALERT_EXTERNAL_URL.rstrip("/") + reverse("observability:alerts")


def payload(alert: Alert, receiver: Receiver, status: str) -> dict[str, Any]:
    """The body Alertmanager's webhook receiver sends (version 4), for one alert."""
    entry = {
        "status": status,
        "labels": alert.labels,
        "annotations": alert.annotations,
        "startsAt": rfc3339(alert.fired_at or alert.active_since),
        "endsAt": rfc3339(alert.resolved_at) if status == AlertState.RESOLVED else ZERO_TIME,
        "generatorURL": f"{alerts_url()}?alert={alert.pk}",
        "fingerprint": alert.fingerprint,
    }
    alertname = alert.labels.get("alertname", alert.rule)
    return {
        "version": "4",
        "groupKey": f'{{}}:{{alertname="{alertname}"}}',
        "truncatedAlerts": 0,
        "status": status,
        "receiver": receiver.name,
        "groupLabels": {"alertname": alertname},
        "commonLabels": alert.labels,
        "commonAnnotations": alert.annotations,
        "externalURL": settings.ALERT_EXTERNAL_URL,
        "alerts": [entry],
    }


def silenced_by(labels: dict[str, str], now: datetime) -> Silence | None:
    active = Silence.objects.filter(starts_at__lte=now, ends_at__gt=now)
    return next((silence for silence in active if silence.matches(labels)), None)


def queue(alert: Alert, status: str, now: datetime) -> list[int]:
    """Create a delivery per receiver for this transition and send each once the transaction commits.

    Firing goes to every enabled receiver unless a silence matches; resolved goes only to the receivers
    that were told it was firing and want to hear it resolved."""
    receivers = Receiver.objects.filter(enabled=True)
    if status == AlertState.FIRING:
        if silenced_by(alert.labels, now):
            return []
    else:
        told = Delivery.objects.filter(alert=alert, status=AlertState.FIRING).values("receiver")
        receivers = receivers.filter(send_resolved=True, pk__in=told)
    ids = []
    for receiver in receivers:
        delivery = Delivery.objects.create(
            alert=alert, receiver=receiver, status=status, payload=payload(alert, receiver, status)
        )
        ids.append(delivery.pk)
    if ids:
        transaction.on_commit(lambda: _enqueue(ids))
    return ids


def _enqueue(ids: list[int]) -> None:
    from observability.tasks import deliver_notification

    for delivery_id in ids:
        deliver_notification.delay(delivery_id)


def redrive_stale(now: datetime) -> list[int]:
    """Level-triggered: re-send pending deliveries whose task was lost (dead worker, broker restart)."""
    stale = Delivery.objects.filter(state=DeliveryState.PENDING, updated__lt=now - STALE)
    ids = list(stale.values_list("pk", flat=True))
    if ids:
        Delivery.objects.filter(pk__in=ids).update(updated=now)
        transaction.on_commit(lambda: _enqueue(ids))
    return ids


def post_webhook(url: str, body: dict[str, Any]) -> int:
    if urlsplit(url).scheme not in ("http", "https"):
        raise SendFailed(f"not an http(s) URL: {url}", retry=False)
    request = urllib.request.Request(  # noqa: S310 — the scheme is checked above
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "User-Agent": "karmada-ui"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.ALERT_WEBHOOK_TIMEOUT) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as exc:
        transient = exc.code >= 500 or exc.code in (408, 429)
        raise SendFailed(f"HTTP {exc.code} {exc.reason}", retry=transient, code=exc.code) from exc
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise SendFailed(f"could not reach {urlsplit(url).netloc}: {reason}", retry=True) from exc


def email_message(body: dict[str, Any]) -> tuple[str, str]:
    alert = body["alerts"][0]
    labels = alert["labels"]
    subject = (
        f"[{body['status'].upper()}] {labels.get('alertname', '')}: {alert['annotations'].get('summary', '')}"
    )
    lines = [alert["annotations"].get("description", ""), "", "Labels:"]
    lines += [f"  {key} = {value}" for key, value in sorted(labels.items())]
    lines += ["", f"Started: {alert['startsAt']}"]
    if body["status"] == AlertState.RESOLVED:
        lines.append(f"Resolved: {alert['endsAt']}")
    lines += ["", f"Alerts: {alert['generatorURL']}"]
    return subject, "\n".join(lines) + "\n"


def send_email(addresses: list[str], body: dict[str, Any]) -> None:
    subject, text = email_message(body)
    try:
        EmailMessage(subject, text, settings.DEFAULT_FROM_EMAIL, addresses).send()
    except (smtplib.SMTPException, OSError) as exc:
        raise SendFailed(f"could not send e-mail: {exc}", retry=True) from exc


def attempt(delivery_id: int, final: bool) -> bool:
    """Try to send one delivery and record the outcome; True when it should be retried later."""
    delivery = Delivery.objects.select_related("receiver").filter(pk=delivery_id).first()
    if delivery is None or delivery.state != DeliveryState.PENDING:
        return False
    receiver = delivery.receiver
    changes: dict[str, Any] = {"attempts": delivery.attempts + 1, "updated": timezone.now()}
    retry = False
    try:
        if receiver.kind == ReceiverKind.WEBHOOK:
            changes["response_code"] = post_webhook(receiver.url, delivery.payload)
        else:
            send_email(list(receiver.emails), delivery.payload)
    except SendFailed as exc:
        log.warning("notification %s to %s failed: %s", delivery_id, receiver.name, exc)
        retry = exc.retry and not final
        changes.update(last_error=str(exc)[:500], response_code=exc.code)
        changes["state"] = DeliveryState.PENDING if retry else DeliveryState.FAILED
    else:
        changes.update(state=DeliveryState.SENT, sent_at=timezone.now(), last_error="")
    Delivery.objects.filter(pk=delivery_id, state=DeliveryState.PENDING).update(**changes)
    return retry
