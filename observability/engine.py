"""The built-in alert evaluator: runs every rule over the /metrics values and moves alerts through
pending → firing → resolved, honouring each rule's `for`, then queues the notifications."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from metrics import recording
from observability import notify
from observability.models import ACTIVE_STATES, Alert, AlertState
from observability.rules import Rule, alert_rules, fill_template
from observability.values import DatabaseSource

RESOLVED_KEPT = timedelta(days=7)


def fingerprint(labels: dict[str, str]) -> str:
    canonical = json.dumps(sorted(labels.items()), separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


@dataclass
class Outcome:
    """What one evaluation changed: alert ids by the transition they made."""

    pending: list[int] = field(default_factory=list)
    fired: list[int] = field(default_factory=list)
    resolved: list[int] = field(default_factory=list)
    active: int = 0


def evaluate_alerts_soon() -> None:
    """Queue an evaluation once the current transaction commits (beat runs one every few seconds too)."""
    from observability.tasks import evaluate_alerts

    transaction.on_commit(evaluate_alerts.delay)


def firing_count() -> int:
    """How many alerts fire now, for the header line of every page."""
    return Alert.objects.filter(state=AlertState.FIRING).count()


def evaluate(now: datetime | None = None) -> Outcome:
    """Evaluate every rule once. Safe to run twice at once: each transition is a conditional update."""
    now = now or timezone.now()
    source = DatabaseSource(now)
    outcome = Outcome()
    rules = alert_rules()
    for rule in rules:
        _evaluate_rule(rule, source, now, outcome)
    # Alerts of a rule that no longer exists resolve rather than linger.
    for alert in Alert.objects.filter(state__in=ACTIVE_STATES).exclude(rule__in=[r.alert for r in rules]):
        _end(alert, now, outcome)
    Alert.objects.filter(state=AlertState.RESOLVED, resolved_at__lt=now - RESOLVED_KEPT).delete()
    notify.redrive_stale(now)
    recording.compact(now)
    return outcome


def _evaluate_rule(rule: Rule, source: DatabaseSource, now: datetime, outcome: Outcome) -> None:
    results = {}
    for series_labels, value in rule.expr.evaluate(source).items():
        labels = {"alertname": rule.alert, **rule.labels, **dict(series_labels)}
        results[fingerprint(labels)] = (labels, value)
    existing = {a.fingerprint: a for a in Alert.objects.filter(rule=rule.alert, state__in=ACTIVE_STATES)}
    for key, (labels, value) in results.items():
        annotations = {name: fill_template(text, labels, value) for name, text in rule.annotations.items()}
        alert = existing.get(key)
        if alert is None:
            alert = _start(rule, key, labels, annotations, value, now, outcome)
            if alert is None:
                continue
        else:
            Alert.objects.filter(pk=alert.pk).update(value=value, annotations=annotations, last_evaluated=now)
        outcome.active += 1
        due = alert.active_since + timedelta(seconds=rule.for_seconds)
        if alert.state == AlertState.PENDING and now >= due:
            _fire(alert, now, outcome)
    for key, alert in existing.items():
        if key not in results:
            _end(alert, now, outcome)


def _start(rule, key, labels, annotations, value, now, outcome) -> Alert | None:
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                rule=rule.alert,
                fingerprint=key,
                labels=labels,
                annotations=annotations,
                state=AlertState.PENDING,
                value=value,
                active_since=now,
                last_evaluated=now,
            )
    except IntegrityError:  # a concurrent evaluation started it; it carries on from there
        return None
    outcome.pending.append(alert.pk)
    return alert


def _fire(alert: Alert, now: datetime, outcome: Outcome) -> None:
    with transaction.atomic():
        won = Alert.objects.filter(pk=alert.pk, state=AlertState.PENDING).update(
            state=AlertState.FIRING, fired_at=now
        )
        if won:
            alert.refresh_from_db()
            outcome.fired.append(alert.pk)
            notify.queue(alert, str(AlertState.FIRING), now)


def _end(alert: Alert, now: datetime, outcome: Outcome) -> None:
    """A pending alert whose condition cleared just goes; a firing one resolves and says so."""
    if alert.state == AlertState.PENDING:
        Alert.objects.filter(pk=alert.pk, state=AlertState.PENDING).delete()
        return
    with transaction.atomic():
        won = Alert.objects.filter(pk=alert.pk, state=AlertState.FIRING).update(
            state=AlertState.RESOLVED, resolved_at=now, last_evaluated=now
        )
        if won:
            alert.refresh_from_db()
            outcome.resolved.append(alert.pk)
            notify.queue(alert, str(AlertState.RESOLVED), now)
