"""The planner's own error types: input errors and the three scheduling failures."""

from __future__ import annotations

NO_CLUSTER_FIT = "NoClusterFit"
UNSCHEDULABLE = "Unschedulable"
SCHEDULER_ERROR = "SchedulerError"


class InputError(ValueError):
    """Malformed planner input; ``path`` names the field, e.g. ``spreadConstraints[0].maxGroups``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


class ScheduleFailure(Exception):
    """A scheduling attempt that produced no result; ``reason`` is Karmada's condition reason."""

    reason = SCHEDULER_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FitError(ScheduleFailure):
    """No cluster passed the filters: Karmada clears the binding's clusters."""

    reason = NO_CLUSTER_FIT


class UnschedulableError(ScheduleFailure):
    """Not enough capacity: Karmada keeps the previous result."""

    reason = UNSCHEDULABLE


class SchedulerError(ScheduleFailure):
    """Any other failure (selection, strategy): Karmada keeps the previous result."""

    reason = SCHEDULER_ERROR
