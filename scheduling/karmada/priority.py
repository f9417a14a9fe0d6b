"""Application priority (Karmada PriorityBasedScheduling): a policy's schedulePriority resolved to a number.

``spec.schedulePriority {priorityClassSource: KubePriorityClass, priorityClassName}`` names a
Kubernetes PriorityClass (``scheduling.k8s.io/v1``) stored on the control plane; its ``value`` becomes
the binding's ``spec.schedulePriority.priority``.  Without schedulePriority the priority is 0.  A named
class that does not exist stops the detector, as in Karmada: the binding waits until it is applied.
The scheduling queue takes the highest priority first and, among equals, the one queued first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, TypeVar

KUBE_PRIORITY_CLASS = "KubePriorityClass"
PRIORITY_CLASS_API_GROUP = "scheduling.k8s.io"
PRIORITY_CLASS_KIND = "PriorityClass"
DEFAULT_PRIORITY = 0
# Kubernetes keeps values above one billion for system-critical classes.
MAX_USER_PRIORITY = 1_000_000_000
MIN_PRIORITY = -(2**31)
MAX_PRIORITY = 2**31 - 1

T = TypeVar("T")


class PriorityUnresolved(ValueError):
    """The policy's schedulePriority cannot be resolved (a missing PriorityClass, an unsupported source)."""


def priority_class_value(manifest: dict[str, Any]) -> int:
    """A PriorityClass manifest's ``value`` (an int32), or PriorityUnresolved when it has none."""
    value = manifest.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_PRIORITY <= value <= MAX_PRIORITY:
        name = (manifest.get("metadata") or {}).get("name", "")
        raise PriorityUnresolved(f"PriorityClass {name} has no whole-number value")
    return value


def resolve_priority(
    schedule_priority: dict[str, Any] | None, find_class: Callable[[str], dict[str, Any] | None]
) -> int | None:
    """The binding's schedulePriority.priority, or None when the policy sets no schedulePriority.

    ``find_class(name)`` returns the stored PriorityClass manifest or None.
    """
    if not schedule_priority:
        return None
    source = schedule_priority.get("priorityClassSource")
    name = str(schedule_priority.get("priorityClassName") or "")
    if source != KUBE_PRIORITY_CLASS:
        raise PriorityUnresolved(f"priority class source {source} is not supported yet")
    manifest = find_class(name)
    if manifest is None:
        raise PriorityUnresolved(f'priorityclasses.scheduling.k8s.io "{name}" not found')
    return priority_class_value(manifest)


def queue_key(priority: int, queued_at: datetime | int) -> tuple[int, Any]:
    """Karmada's active-queue order: higher priority first, then the one queued earlier."""
    return (-priority, queued_at)


def in_queue_order(
    items: Iterable[T], priority: Callable[[T], int], queued_at: Callable[[T], Any]
) -> list[T]:
    """Items in the order the scheduling queue pops them."""
    return sorted(items, key=lambda item: queue_key(priority(item), queued_at(item)))
