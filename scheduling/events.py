"""Events on templates, bindings and works: what happened, why, and the data behind it."""

from __future__ import annotations

from typing import Any

from scheduling.models import Event, ResourceBinding, ResourceTemplate, Work


def _reference(obj: Any) -> tuple[str, str, str, str]:
    if isinstance(obj, ResourceTemplate):
        return obj.kind, obj.namespace, obj.name, str(obj.uid)
    if isinstance(obj, ResourceBinding):
        return obj.kind, obj.namespace, obj.name, str(obj.permanent_id)
    if isinstance(obj, Work):
        return "Work", obj.namespace, obj.name, str(obj.permanent_id)
    raise TypeError(f"events are not recorded for {type(obj).__name__}")


def record(obj: Any, type_: str, reason: str, message: str, data: dict[str, Any] | None = None) -> Event:
    """Write one event about a template, binding or work."""
    event = unsaved(obj, type_, reason, message, data)
    event.save(force_insert=True)
    return event


def unsaved(obj: Any, type_: str, reason: str, message: str, data: dict[str, Any] | None = None) -> Event:
    """The event `record` writes, not yet saved (for a bulk_create of many)."""
    kind, namespace, name, uid = _reference(obj)
    return Event(
        object_kind=kind,
        object_namespace=namespace,
        object_name=name,
        object_uid=uid,
        type=type_,
        reason=reason,
        message=message,
        data=data or {},
    )


def for_object(obj: Any) -> Any:
    """The events of one object, newest first."""
    return Event.objects.filter(object_uid=_reference(obj)[3])
