"""The verbs that change alerting: silences (create, expire) and notification receivers (create,
update, delete). Pages and the REST API call these; each write leaves one audit entry with the diff."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit
from core.errors import FieldErrors
from observability.forms import check_matchers, check_receiver
from observability.models import Receiver, Silence

RECEIVER_FIELDS = ("name", "kind", "url", "emails", "send_resolved", "enabled")


def _silence_state(silence: Silence) -> dict[str, Any]:
    return {
        "matchers": silence.matchers,
        "comment": silence.comment,
        "starts_at": silence.starts_at,
        "ends_at": silence.ends_at,
    }


def create_silence(
    matchers: dict[str, str], seconds: int, comment: str, user: Any, now: datetime | None = None
) -> Silence:
    """Mute every alert whose labels match all `matchers`, from now for `seconds`."""
    matchers = check_matchers(matchers)
    now = now or timezone.now()
    with transaction.atomic():
        silence = Silence.objects.create(
            matchers=matchers,
            comment=comment,
            created_by=user.get_username() if getattr(user, "is_authenticated", False) else "",
            starts_at=now,
            ends_at=now + timedelta(seconds=seconds),
        )
        audit.record(
            user,
            "SilenceCreated",
            "Silence",
            str(silence.pk),
            summary=str(silence),
            new=_silence_state(silence),
        )
    return silence


def expire_silence(silence: Silence, user: Any, now: datetime | None = None) -> bool:
    """End an active silence now; False (and nothing written) when it has ended already."""
    now = now or timezone.now()
    with transaction.atomic():
        if not Silence.objects.filter(pk=silence.pk, ends_at__gt=now).update(ends_at=now):
            return False
        old = _silence_state(silence)
        silence.refresh_from_db()
        audit.record(
            user,
            "SilenceExpired",
            "Silence",
            str(silence.pk),
            summary=str(silence),
            old=old,
            new=_silence_state(silence),
        )
    return True


def _receiver_state(receiver: Receiver) -> dict[str, Any]:
    """What an audit entry shows of a receiver: a webhook URL only as far as its host (paths and
    queries often carry the hook's secret token)."""
    state = {field: getattr(receiver, field) for field in RECEIVER_FIELDS}
    if receiver.url:
        parts = urlsplit(receiver.url)
        hidden = parts.path not in ("", "/") or parts.query or parts.username or parts.password
        state["url"] = f"{parts.scheme}://{parts.hostname or ''}{':' + str(parts.port) if parts.port else ''}"
        state["url"] += f"/{audit.REDACTED}" if hidden else ""
    return state


def _checked_receiver(fields: dict[str, Any], pk: int | None) -> dict[str, Any]:
    data = {field: fields[field] for field in RECEIVER_FIELDS if field in fields}
    errors = {
        name: [message]
        for name, message in check_receiver(
            data.get("kind", ""), data.get("url", ""), data.get("emails") or []
        ).items()
    }
    if Receiver.objects.filter(name=data.get("name")).exclude(pk=pk).exists():
        errors["name"] = [_("There is already a receiver called %(name)s.") % {"name": data["name"]}]
    if errors:
        raise FieldErrors(errors)
    return data


def create_receiver(fields: dict[str, Any], user: Any) -> Receiver:
    """Add a webhook or e-mail receiver; FieldErrors name what is wrong."""
    data = _checked_receiver(fields, None)
    with transaction.atomic():
        receiver = Receiver.objects.create(**data)
        audit.record(user, "ReceiverCreated", "Receiver", receiver.name, new=_receiver_state(receiver))
    return receiver


def update_receiver(receiver: Receiver, fields: dict[str, Any], user: Any) -> Receiver:
    """Change the fields given; FieldErrors name what is wrong."""
    current = {field: getattr(receiver, field) for field in RECEIVER_FIELDS}
    data = _checked_receiver({**current, **fields}, receiver.pk)
    old = _receiver_state(receiver)
    changed_url = data.get("url") != receiver.url
    with transaction.atomic():
        for field, value in data.items():
            setattr(receiver, field, value)
        receiver.save()
        new = _receiver_state(receiver)
        # A new secret in the same host's URL would otherwise leave no trace in the diff.
        extra = (
            {"url": {"before": old["url"], "after": new["url"]}}
            if changed_url and old["url"] == new["url"]
            else {}
        )
        audit.record(user, "ReceiverChanged", "Receiver", receiver.name, old=old, new=new, changes=extra)
    return receiver


def delete_receiver(receiver: Receiver, user: Any) -> None:
    """Remove a receiver and its delivery history."""
    old = _receiver_state(receiver)
    with transaction.atomic():
        receiver.delete()
        audit.record(user, "ReceiverDeleted", "Receiver", old["name"], old=old)
