"""Taints, tolerations and the Kubernetes rule for whether one tolerates the other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .parsing import get_int, get_list, get_str, join, require_map

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)


@dataclass(frozen=True)
class Taint:
    """A cluster or node taint."""

    key: str
    value: str = ""
    effect: str = NO_SCHEDULE

    def __str__(self) -> str:
        if self.value:
            return f"{self.key}={self.value}:{self.effect}"
        return f"{self.key}:{self.effect}"

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> Taint:
        data = require_map(data, path)
        key = get_str(data.get("key"), join(path, "key"))
        if not key:
            raise InputError(join(path, "key"), "is required")
        effect = get_str(data.get("effect"), join(path, "effect"))
        if effect not in EFFECTS:
            raise InputError(join(path, "effect"), f"must be one of {', '.join(EFFECTS)}")
        return cls(key=key, value=get_str(data.get("value"), join(path, "value")), effect=effect)


@dataclass(frozen=True)
class Toleration:
    """A core/v1 toleration (operator Exists or Equal; empty means Equal)."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes ToleratesTaint: effect, then key, then operator and value."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        return False

    def __str__(self) -> str:
        key = self.key or "*"
        op = self.operator or "Equal"
        text = key if op == "Exists" else f"{key}={self.value}"
        return f"{text}:{self.effect}" if self.effect else text

    @classmethod
    def from_dict(cls, data: Any, path: str = "") -> Toleration:
        data = require_map(data, path)
        seconds = data.get("tolerationSeconds")
        return cls(
            key=get_str(data.get("key"), join(path, "key")),
            operator=get_str(data.get("operator"), join(path, "operator")),
            value=get_str(data.get("value"), join(path, "value")),
            effect=get_str(data.get("effect"), join(path, "effect")),
            toleration_seconds=None if seconds is None else get_int(seconds, join(path, "tolerationSeconds")),
        )


def parse_taints(data: Any, path: str) -> tuple[Taint, ...]:
    """A list of taints."""
    return tuple(Taint.from_dict(item, join(path, i)) for i, item in enumerate(get_list(data, path) or []))


def parse_tolerations(data: Any, path: str) -> tuple[Toleration, ...]:
    """A list of tolerations."""
    return tuple(
        Toleration.from_dict(item, join(path, i)) for i, item in enumerate(get_list(data, path) or [])
    )


def first_untolerated(taints: tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule/NoExecute taint that no toleration tolerates (PreferNoSchedule is ignored)."""
    for taint in taints:
        if taint.effect not in (NO_SCHEDULE, NO_EXECUTE):
            continue
        if not any(toleration.tolerates(taint) for toleration in tolerations):
            return taint
    return None
