"""Status conditions that keep their timestamps while nothing about them changes, and status helpers."""

from __future__ import annotations

from typing import Any

from membersim import meta


def condition(
    old: list[dict[str, Any]] | None,
    type_: str,
    status: str,
    reason: str = "",
    message: str = "",
    *,
    update_time: bool = False,
) -> dict[str, Any]:
    """A condition that keeps its timestamps while nothing about it changes."""
    when = meta.now()
    previous = next((c for c in old or [] if c.get("type") == type_), None)
    result: dict[str, Any] = {"type": type_, "status": status}
    if update_time:
        result["lastUpdateTime"] = when
    result["lastTransitionTime"] = when
    if reason:
        result["reason"] = reason
    if message:
        result["message"] = message
    if previous and previous.get("status") == status:
        result["lastTransitionTime"] = previous.get("lastTransitionTime", when)
        if update_time and previous.get("reason") == reason and previous.get("message") == message:
            result["lastUpdateTime"] = previous.get("lastUpdateTime", when)
    return shared(result)


_SHARED: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
MAX_SHARED = 4096


def shared(condition: dict[str, Any]) -> dict[str, Any]:
    """One dict for every equal condition: the pods a fleet starts in one second all hold the same
    five, and stored objects are never changed in place. Callers must not change what they get."""
    key = tuple(condition.items())
    found = _SHARED.get(key)
    if found is None:
        if len(_SHARED) >= MAX_SHARED:
            _SHARED.clear()
        found = _SHARED[key] = condition
    return found


def drop_zero(status: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The API server omits zero counters (omitempty); clients rely on defaults."""
    return {k: v for k, v in status.items() if not (k in keys and v == 0)}


def percent_or_int(value: Any, total: int, *, round_up: bool) -> int:
    """An IntOrString such as maxUnavailable ("25%" or 2) scaled against ``total``."""
    if isinstance(value, str) and value.endswith("%"):
        try:
            percent = int(value[:-1])
        except ValueError:
            return 0
        scaled = total * percent
        return -(-scaled // 100) if round_up else scaled // 100
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
