"""Taints and tolerations: their fields, Kubernetes' validation, and the rule of which tolerates which."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubesyntax.names import label_key_error, label_value_error

NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "PreferNoSchedule", "NoExecute"
EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)
EQUAL, EXISTS = "Equal", "Exists"
TOLERATION_OPERATORS = ("", EQUAL, EXISTS)


class TaintError(ValueError):
    """A taint or toleration that does not parse; `field` names the field at fault."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class Taint:
    """A cluster or node taint; NoExecute taints may carry when they were added."""

    key: str
    value: str = ""
    effect: str = NO_SCHEDULE
    time_added: datetime | None = None

    def __str__(self) -> str:
        """`key=value:effect`, or `key:effect` without a value, as kubectl writes taints."""
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def as_dict(self) -> dict[str, str]:
        data = {"key": self.key, "value": self.value, "effect": self.effect}
        if self.time_added is not None:
            data["timeAdded"] = self.time_added.isoformat().replace("+00:00", "Z")
        return data


@dataclass(frozen=True)
class Toleration:
    """A core/v1 toleration; an empty operator means Equal, an empty key with Exists tolerates every taint."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes ToleratesTaint: the effect, then the key, then the operator and the value."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == EXISTS:
            return True
        if self.operator in ("", EQUAL):
            return self.value == taint.value
        return False

    def __str__(self) -> str:
        key = self.key or "*"
        text = key if self.operator == EXISTS else f"{key}={self.value}"
        return f"{text}:{self.effect}" if self.effect else text


def _string(data: dict[str, Any], name: str) -> str:
    value = data.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TaintError(name, "must be a string")
    return value


def taint_from_dict(data: Any) -> Taint:
    """A taint as the API writes it ({key, value, effect}); the key is required, the effect one of three."""
    if data is None:
        raise TaintError("", "is required")
    if not isinstance(data, dict):
        raise TaintError("", "must be an object")
    key = _string(data, "key")
    if not key:
        raise TaintError("key", "is required")
    effect = _string(data, "effect")
    if effect not in EFFECTS:
        raise TaintError("effect", f"must be one of {', '.join(EFFECTS)}")
    return Taint(key, _string(data, "value"), effect)


def toleration_from_dict(data: Any) -> Toleration:
    """A toleration as the API writes it; tolerationSeconds a whole number (3.0 is read as 3)."""
    if data is None:
        raise TaintError("", "is required")
    if not isinstance(data, dict):
        raise TaintError("", "must be an object")
    seconds = data.get("tolerationSeconds")
    if isinstance(seconds, float) and seconds.is_integer():
        seconds = int(seconds)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)):
        raise TaintError("tolerationSeconds", "must be an integer")
    return Toleration(
        key=_string(data, "key"),
        operator=_string(data, "operator"),
        value=_string(data, "value"),
        effect=_string(data, "effect"),
        toleration_seconds=seconds,
    )


def taint_errors(key: str, value: str, effect: str) -> list[tuple[str, str]]:
    """Kubernetes' validation of one taint: (field, reason) for the key, the value and the effect."""
    errors = []
    reason = label_key_error(key)
    if reason:
        errors.append(("key", reason))
    reason = label_value_error(value)
    if reason:
        errors.append(("value", reason))
    if effect not in EFFECTS:
        errors.append(("effect", f"must be one of {', '.join(EFFECTS)}, not {effect!r}"))
    return errors


def first_untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule or NoExecute taint no toleration tolerates (PreferNoSchedule only prefers)."""
    for taint in taints:
        if taint.effect in (NO_SCHEDULE, NO_EXECUTE) and not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None
