"""Staged rollouts (a karmada-ui extension): waves of clusters from a policy's annotations, and where a
rollout of a new template revision stands in each wave, cluster by cluster, with the reason it waits.

A policy opts in with ``rollout.karmada-ui.io/waves``: waves separated by ``;``, each a label selector
in kubectl's text form (``env=staging``), ``names:a,b`` (clusters by name, in that order) or ``*`` (every
target cluster no earlier wave took; only last). Clusters no wave takes form a final wave of their own.
``rollout.karmada-ui.io/soak`` (default 60s) is how long every replica of the new revision must stay
ready before the next wave starts; ``rollout.karmada-ui.io/progress-deadline`` (default 10m) is how long
an updated cluster may take to get there before the rollout halts. The annotations keep Karmada's YAML
valid: Karmada itself ignores them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kubesyntax.durations import DurationError, parse_duration
from kubesyntax.selector_text import parse_selector
from kubesyntax.selectors import Selector, SelectorError

from .errors import InputError
from .model import ClusterSnapshot

WAVES_ANNOTATION = "rollout.karmada-ui.io/waves"
SOAK_ANNOTATION = "rollout.karmada-ui.io/soak"
DEADLINE_ANNOTATION = "rollout.karmada-ui.io/progress-deadline"
DEFAULT_SOAK_SECONDS = 60.0
DEFAULT_DEADLINE_SECONDS = 600.0
REST = "*"
NAMES_PREFIX = "names:"

# Rollout phases, as the controller stores them.
PROGRESSING, PAUSED, HALTED, ABORTED, COMPLETE, SUPERSEDED = (
    "Progressing",
    "Paused",
    "Halted",
    "Aborted",
    "Complete",
    "Superseded",
)
ACTIVE_PHASES = (PROGRESSING, PAUSED, HALTED)

# Where one cluster stands.
HELD, UPDATING, SOAKING, UPDATED, FAILED, ROLLED_BACK = (
    "held",
    "updating",
    "soaking",
    "updated",
    "failed",
    "rolledBack",
)


@dataclass(frozen=True)
class WaveRule:
    """One wave as written: by label selector, by cluster names (in order), or the rest."""

    text: str
    selector: Selector | None = None
    names: tuple[str, ...] = ()
    rest: bool = False

    def takes(self, cluster: ClusterSnapshot) -> bool:
        if self.rest:
            return True
        if self.selector is not None:
            return self.selector.matches(cluster.labels)
        return cluster.name in self.names


@dataclass(frozen=True)
class RolloutSpec:
    """A policy's staged-rollout settings."""

    waves: tuple[WaveRule, ...]
    soak_seconds: float = DEFAULT_SOAK_SECONDS
    progress_deadline_seconds: float = DEFAULT_DEADLINE_SECONDS

    def as_dict(self) -> dict[str, Any]:
        return {
            "waves": [rule.text for rule in self.waves],
            "soakSeconds": self.soak_seconds,
            "progressDeadlineSeconds": self.progress_deadline_seconds,
        }


def _path(annotation: str) -> str:
    return f"metadata.annotations[{annotation}]"


def _duration(annotations: Mapping[str, str], key: str, default: float) -> float:
    text = annotations.get(key)
    if text is None:
        return default
    try:
        seconds = parse_duration(str(text).strip())
    except DurationError as exc:
        raise InputError(_path(key), f"must be a duration: {exc}") from None
    if seconds < 0:
        raise InputError(_path(key), "must not be negative")
    return seconds


def _rule(text: str, position: int, last: bool) -> WaveRule:
    where = f"wave {position}"
    if text == REST:
        if not last:
            raise InputError(_path(WAVES_ANNOTATION), f"{where}: '*' (the rest) can only be the last wave")
        return WaveRule(text, rest=True)
    if text.startswith(NAMES_PREFIX):
        listed = tuple(name.strip() for name in text[len(NAMES_PREFIX) :].split(","))
        if not all(listed):
            raise InputError(_path(WAVES_ANNOTATION), f"{where}: names: needs cluster names separated by ','")
        return WaveRule(text, names=listed)
    try:
        selector = parse_selector(text)
    except SelectorError as exc:
        raise InputError(_path(WAVES_ANNOTATION), f"{where}: {exc}") from None
    if selector.empty:
        raise InputError(_path(WAVES_ANNOTATION), f"{where}: an empty selector; write '*' for the rest")
    return WaveRule(text, selector=selector)


def rollout_spec_from_annotations(annotations: Mapping[str, str] | None) -> RolloutSpec | None:
    """The policy's rollout settings; None when it asks for no staged rollout. Raises InputError."""
    annotations = annotations or {}
    text = annotations.get(WAVES_ANNOTATION)
    if text is None:
        return None
    parts = [part.strip() for part in str(text).split(";")]
    if not any(parts):
        raise InputError(_path(WAVES_ANNOTATION), "needs at least one wave, e.g. 'env=staging; *'")
    if not all(parts):
        raise InputError(_path(WAVES_ANNOTATION), "has an empty wave between ';'")
    rules = tuple(_rule(part, index, index == len(parts)) for index, part in enumerate(parts, 1))
    return RolloutSpec(
        waves=rules,
        soak_seconds=_duration(annotations, SOAK_ANNOTATION, DEFAULT_SOAK_SECONDS),
        progress_deadline_seconds=_duration(annotations, DEADLINE_ANNOTATION, DEFAULT_DEADLINE_SECONDS),
    )


@dataclass(frozen=True)
class Wave:
    """A wave of the plan: its number (from 1), the rule that chose it, its clusters in rollout order."""

    number: int
    rule: str
    clusters: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"wave": self.number, "rule": self.rule, "clusters": list(self.clusters)}


def plan_waves(
    spec: RolloutSpec, clusters: Sequence[ClusterSnapshot], targets: Sequence[str]
) -> tuple[Wave, ...]:
    """Divide the target clusters into waves: each goes to the first wave whose rule takes it.

    Every written wave is kept, even an empty one, so the plan reads as the annotation does; targets no
    rule takes make a last wave ``*``. Targets without a snapshot count as clusters without labels.
    """
    snapshots = {cluster.name: cluster for cluster in clusters}
    left = sorted(set(targets))
    waves = []
    for number, rule in enumerate(spec.waves, 1):
        taken = [name for name in left if rule.takes(snapshots.get(name) or ClusterSnapshot(name=name))]
        if rule.names:
            taken.sort(key=rule.names.index)
        left = [name for name in left if name not in taken]
        waves.append(Wave(number, rule.text, tuple(taken)))
    if left:
        waves.append(Wave(len(waves) + 1, REST, tuple(left)))
    return tuple(waves)


@dataclass(frozen=True)
class MemberStatus:
    """What one member copy reports, as the Work holds it.

    ``revision`` is the template generation the copy carries (Karmada's resourceTemplateGeneration);
    ``since`` is when this status was first seen, so a ready status has been ready since then.
    ``workload`` is False for kinds without replicas: they are ready once applied.
    """

    cluster: str
    applied: bool
    revision: int
    desired: int = 0
    replicas: int = 0
    updated: int = 0
    available: int = 0
    observed: bool = True
    workload: bool = True
    since: datetime | None = None

    def ready_on(self, revision: int) -> bool:
        """The copy runs `revision` and every replica of it is available, none of an older one left."""
        if not self.applied or self.revision < revision:
            return False
        if not self.workload:
            return True
        return (
            self.observed
            and self.updated >= self.desired
            and self.available >= self.desired
            and self.replicas <= self.desired
        )

    def progress(self) -> str:
        return f"{self.updated} of {self.desired} replicas updated, {self.available} available"


@dataclass(frozen=True)
class ClusterStage:
    """Where one cluster stands in a rollout, and why (``code`` for machines, ``message`` for people)."""

    cluster: str
    wave: int
    state: str
    code: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "wave": self.wave,
            "state": self.state,
            "code": self.code,
            "message": self.message,
        }


@dataclass(frozen=True)
class WaveProgress:
    """One wave and the stage of each of its clusters."""

    wave: Wave
    stages: tuple[ClusterStage, ...]

    @property
    def done(self) -> bool:
        return all(stage.state == UPDATED for stage in self.stages)

    @property
    def state(self) -> str:
        states = {stage.state for stage in self.stages}
        if not states or states == {UPDATED}:
            return "done" if states else "empty"
        for state in (FAILED, ROLLED_BACK, UPDATING, SOAKING):
            if state in states:
                return state
        return "waiting" if states == {HELD} else UPDATING

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.wave.as_dict(),
            "state": self.state,
            "stages": [stage.as_dict() for stage in self.stages],
        }


@dataclass(frozen=True)
class RolloutPlan:
    """What a rollout does next: clusters to update now, clusters newly failed, and every stage."""

    waves: tuple[WaveProgress, ...]
    release: tuple[str, ...] = ()
    failed: tuple[ClusterStage, ...] = ()
    complete: bool = False
    current_wave: int | None = None
    stages: dict[str, ClusterStage] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "waves": [wave.as_dict() for wave in self.waves],
            "release": list(self.release),
            "failed": [stage.as_dict() for stage in self.failed],
            "complete": self.complete,
            "currentWave": self.current_wave,
        }


def _seconds(start: datetime | None, now: datetime) -> float:
    return 0.0 if start is None else max(0.0, (now - start).total_seconds())


def _released_stage(
    cluster: str,
    number: int,
    status: MemberStatus | None,
    released_at: datetime,
    spec: RolloutSpec,
    revision: int,
    now: datetime,
) -> ClusterStage:
    if status is not None and status.ready_on(revision):
        ready_for = _seconds(status.since, now)
        if ready_for >= spec.soak_seconds:
            return ClusterStage(cluster, number, UPDATED, "Soaked", f"revision {revision} ready and soaked")
        left = spec.soak_seconds - ready_for
        return ClusterStage(
            cluster, number, SOAKING, "Soaking", f"every replica ready; soaking, {left:.0f}s left"
        )
    if status is None or not status.applied:
        progress = "the new revision is not applied yet"
    elif status.revision < revision:
        progress = f"the member still reports revision {status.revision}"
    else:
        progress = status.progress()
    waited = _seconds(released_at, now)
    if waited > spec.progress_deadline_seconds:
        return ClusterStage(
            cluster,
            number,
            FAILED,
            "ProgressDeadlineExceeded",
            f"not ready {waited:.0f}s after its update (deadline {spec.progress_deadline_seconds:.0f}s): "
            f"{progress}",
        )
    return ClusterStage(cluster, number, UPDATING, "Updating", progress)


def _blocker(previous: WaveProgress) -> str:
    """Why the next wave waits on `previous`: its first cluster that is not through, and where it is."""
    for stage in previous.stages:
        if stage.state != UPDATED:
            return f"waits for wave {previous.wave.number} ({stage.cluster}: {stage.message})"
    return f"waits for wave {previous.wave.number}"


def plan_rollout(
    spec: RolloutSpec,
    waves: Sequence[Wave],
    revision: int,
    statuses: Mapping[str, MemberStatus],
    released: Mapping[str, datetime],
    phase: str,
    now: datetime,
    previous_revision: int = 0,
) -> RolloutPlan:
    """Judge a rollout of template `revision`: which clusters move to it now, which failed, and why every
    other cluster waits. Pure: the released clusters (with when), the member statuses and the clock in.

    A wave starts only when every cluster of every earlier wave runs the new revision with every replica
    ready for the soak time; a released cluster not ready within the progress deadline fails, and a
    failure anywhere stops further releases. Paused and halted rollouts release nothing; an aborted one
    holds every cluster on the previous revision.
    """
    progressed: list[WaveProgress] = []
    release: list[str] = []
    failed: list[ClusterStage] = []
    gate: WaveProgress | None = None  # the first wave not through, which every later wave waits on
    for wave in waves:
        stages = []
        for cluster in wave.clusters:
            if phase == ABORTED:
                state, code = (ROLLED_BACK, "Aborted") if cluster in released else (HELD, "Aborted")
                message = f"rollout aborted: back on revision {previous_revision}"
                stages.append(ClusterStage(cluster, wave.number, state, code, message))
                continue
            if cluster in released:
                stage = _released_stage(
                    cluster, wave.number, statuses.get(cluster), released[cluster], spec, revision, now
                )
                if stage.state == FAILED:
                    failed.append(stage)
                stages.append(stage)
                continue
            if gate is not None:
                stages.append(ClusterStage(cluster, wave.number, HELD, "WaitingForWave", _blocker(gate)))
            elif phase != PROGRESSING:
                reason = {PAUSED: "rollout paused", HALTED: "rollout halted by a failure"}.get(phase, phase)
                stages.append(ClusterStage(cluster, wave.number, HELD, phase, reason))
            else:
                release.append(cluster)
                stages.append(ClusterStage(cluster, wave.number, UPDATING, "Released", "updated now"))
        current = WaveProgress(wave, tuple(stages))
        progressed.append(current)
        if gate is None and not current.done:
            gate = current
    if failed:
        release = []
        progressed = [
            WaveProgress(
                item.wave,
                tuple(
                    ClusterStage(s.cluster, s.wave, HELD, HALTED, "rollout halted by a failure")
                    if s.code == "Released"
                    else s
                    for s in item.stages
                ),
            )
            for item in progressed
        ]
    stages_by_cluster = {stage.cluster: stage for item in progressed for stage in item.stages}
    complete = phase != ABORTED and all(item.done for item in progressed)
    return RolloutPlan(
        waves=tuple(progressed),
        release=tuple(release),
        failed=tuple(failed),
        complete=complete,
        current_wave=None if gate is None else gate.wave.number,
        stages=stages_by_cluster,
    )
