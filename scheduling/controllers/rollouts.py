"""Staged rollouts (karmada-ui): template revisions kept, the clusters a rollout holds back, and the
controller that moves a rollout wave by wave as the member copies report the new revision ready."""

from __future__ import annotations

import copy
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from clusters.models import Cluster
from core import audit
from core.errors import FieldError
from metrics import recording
from scheduling import events
from scheduling.controllers.values_sql import insert_rows
from scheduling.karmada import names
from scheduling.models import ResourceBinding, ResourceTemplate, Rollout, TemplateRevision, Work
from scheduling.planner import (
    ClusterSnapshot,
    InputError,
    MemberStatus,
    RolloutPlan,
    RolloutSpec,
    plan_rollout,
    plan_waves,
    rollout_spec_from_annotations,
)
from scheduling.planner.waves import (
    ABORTED,
    ACTIVE_PHASES,
    COMPLETE,
    HALTED,
    PAUSED,
    PROGRESSING,
    SUPERSEDED,
)

log = logging.getLogger(__name__)

KEEP_REVISIONS = 10
EVENT_REASONS = (
    "RolloutStarted",
    "RolloutWaveStarted",
    "RolloutHalted",
    "RolloutPaused",
    "RolloutResumed",
    "RolloutAborted",
    "RolloutSuperseded",
    "RolloutComplete",
)
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "ReplicaSet")
HALTS_METRIC = "karmada_ui_rollout_halts_total"


class RolloutRefused(FieldError):
    """An operator's step that does not apply to the rollout as it stands (say, resuming a finished one)."""

    def __init__(self, message: str) -> None:
        super().__init__("step", message)


# ------------------------------------------------------------------------------------------ revisions


def first_revisions(templates: list[ResourceTemplate]) -> None:
    """Record templates just created as their first revisions: they have no other and no rollout yet, so
    this is one insert for all (an apply of many new templates did five statements each in keep_revision)."""
    insert_rows(
        TemplateRevision,
        [TemplateRevision(template=t, generation=t.generation, manifest=t.manifest) for t in templates],
        key=None,
    )


def keep_revision(template: ResourceTemplate, previous: dict[str, Any] | None = None) -> None:
    """Record the template's current manifest as its revision (and the one it replaces, if not kept yet);
    only the last few are kept, besides any a rollout still points at."""
    if previous is not None and template.generation > 1:
        TemplateRevision.objects.get_or_create(
            template=template, generation=template.generation - 1, defaults={"manifest": previous}
        )
    TemplateRevision.objects.update_or_create(
        template=template, generation=template.generation, defaults={"manifest": template.manifest}
    )
    pinned = set(
        Rollout.objects.filter(binding__template=template).values_list("from_revision", "to_revision")
    )
    keep = {pk for pair in pinned for pk in pair}
    old = template.revisions.order_by("-generation").values_list("pk", flat=True)[KEEP_REVISIONS:]
    TemplateRevision.objects.filter(pk__in=[pk for pk in old if pk not in keep]).delete()


def _staged_body(manifest: dict[str, Any]) -> dict[str, Any]:
    """What a rollout stages: everything but metadata and the replica count (a scale is not a revision)."""
    body = {key: value for key, value in manifest.items() if key != "metadata"}
    spec = body.get("spec")
    if isinstance(spec, dict) and "replicas" in spec:
        body["spec"] = {key: value for key, value in spec.items() if key != "replicas"}
    return body


# ------------------------------------------------------------------------ what propagation should hold


@dataclass
class HeldTemplate:
    """A template as an older revision had it: what a held cluster keeps (a TemplateLike)."""

    template: ResourceTemplate
    generation: int
    manifest: dict[str, Any]
    uid: uuid.UUID

    def claim_metadata(self) -> tuple[dict[str, str], dict[str, str]]:
        return self.template.claim_metadata()


def spec_of(binding: ResourceBinding) -> RolloutSpec | None:
    """The binding's policy's rollout settings; a policy whose annotations no longer parse stages nothing."""
    if binding.policy is None:
        return None
    try:
        return rollout_spec_from_annotations(binding.policy.annotations)
    except InputError:
        return None


def _stamped_generation(work: Work) -> int:
    stamped = str(
        ((work.manifest.get("metadata") or {}).get("annotations") or {}).get(names.TEMPLATE_GENERATION)
    )
    return int(stamped) if stamped.isdigit() else 0


def latest_rollout(binding: ResourceBinding) -> Rollout | None:
    return (
        Rollout.objects.select_related("from_revision", "to_revision")
        .filter(binding=binding)
        .order_by("-pk")
        .first()
    )


def start_if_needed(binding: ResourceBinding, works: dict[str, Work]) -> Rollout | None:
    """Start a rollout when the template moved to a new revision while its clusters run an older one
    (see `due_start`); the binding's latest rollout either way."""
    due = due_start(binding, works)
    if due is None:
        return latest_rollout(binding)
    return _start(binding, *due)


def due_start(
    binding: ResourceBinding, works: dict[str, Work]
) -> tuple[RolloutSpec, TemplateRevision, TemplateRevision, Rollout | None] | None:
    """What a rollout due now would be (spec, from, to, the rollout it supersedes); None when none is due.

    A first propagation is not staged (no cluster runs anything yet), nor a change of replicas alone. A
    new revision during a rollout, or after an abort, starts again from the revision every cluster ran.
    """
    spec = spec_of(binding)
    if spec is None:
        return None
    template = binding.template
    latest = latest_rollout(binding)
    current = TemplateRevision.objects.filter(template=template, generation=template.generation).first()
    if current is None:
        return None
    if latest is not None and latest.phase not in (COMPLETE, SUPERSEDED):
        if _staged_body(latest.to_revision.manifest) == _staged_body(current.manifest):
            return None
        return spec, latest.from_revision, current, latest
    running = [_stamped_generation(w) for w in works.values() if not w.deleting and w.applied_hash]
    if not running or max(running) >= template.generation:
        return None
    base = TemplateRevision.objects.filter(template=template, generation=max(running)).first()
    if base is None:
        log.info("rollout of %s not staged: revision %s was not kept", binding, max(running))
        return None
    if _staged_body(base.manifest) == _staged_body(current.manifest):
        return None
    return spec, base, current, latest


def _start(
    binding: ResourceBinding,
    spec: RolloutSpec,
    base: TemplateRevision,
    current: TemplateRevision,
    latest: Rollout | None,
) -> Rollout:
    if latest is not None and latest.phase in (*ACTIVE_PHASES, ABORTED):
        Rollout.objects.filter(pk=latest.pk).update(phase=SUPERSEDED, finished_at=timezone.now())
        events.record(
            binding,
            "Normal",
            "RolloutSuperseded",
            f"revision {current.generation} arrived: the rollout of revision {latest.to_revision.generation} "
            f"stops and a new one starts from revision {base.generation}",
        )
    rollout = Rollout.objects.create(binding=binding, from_revision=base, to_revision=current)
    waves = plan_waves(spec, cluster_snapshots(binding), _targets(binding))
    plan_text = "; ".join(f"wave {w.number} {', '.join(w.clusters) or '(none)'}" for w in waves)
    events.record(
        binding,
        "Normal",
        "RolloutStarted",
        f"staged rollout of revision {current.generation} (from {base.generation}): {plan_text}",
        {"waves": [w.as_dict() for w in waves]},
    )
    audit.record(
        None,
        "rollout.start",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=f"Rollout of revision {current.generation} started ({len(waves)} waves)",
        changes={"rollout": {"from": base.generation, "to": current.generation}},
    )
    return rollout


def held_templates(binding: ResourceBinding) -> dict[str, HeldTemplate]:
    """The clusters the binding's rollout keeps on the previous revision, with that revision's template.

    Released clusters of an active rollout get the new revision; an aborted rollout holds every cluster.
    The replica count always follows the template: a scale is never held back.
    """
    if spec_of(binding) is None:
        return {}  # the common case: no staged rollout, no query
    rollout = latest_rollout(binding)
    if rollout is None or rollout.phase not in (*ACTIVE_PHASES, ABORTED):
        return {}
    held = _targets(binding)
    if rollout.phase != ABORTED:
        held = [name for name in held if name not in rollout.released]
    if not held:
        return {}
    manifest = copy.deepcopy(rollout.from_revision.manifest)
    replicas = (binding.template.manifest.get("spec") or {}).get("replicas")
    if replicas is not None and isinstance(manifest.get("spec"), dict):
        manifest["spec"]["replicas"] = replicas
    revision = HeldTemplate(
        binding.template, rollout.from_revision.generation, manifest, binding.template.uid
    )
    return dict.fromkeys(held, revision)


# ----------------------------------------------------------------------------------- the controller


def _targets(binding: ResourceBinding) -> list[str]:
    return [entry["name"] for entry in binding.clusters]


def cluster_snapshots(binding: ResourceBinding) -> list[ClusterSnapshot]:
    rows = Cluster.objects.filter(name__in=_targets(binding)).values_list("name", "labels")
    return [ClusterSnapshot(name=name, labels=dict(labels or {})) for name, labels in rows]


def member_status(work: Work) -> MemberStatus:
    """What the Work says of its member copy, as the wave planner reads it."""
    status = work.status or {}
    kind = work.manifest.get("kind")
    applied = work.in_sync and not work.deleting
    if kind not in WORKLOAD_KINDS:
        revision = _stamped_generation(work) if applied else 0
        return MemberStatus(work.cluster_name, applied, revision, workload=False, since=work.applied_at)
    desired = (work.manifest.get("spec") or {}).get("replicas", 1)
    generation = int(status.get("generation") or 0)
    return MemberStatus(
        work.cluster_name,
        applied=applied,
        revision=int(status.get("resourceTemplateGeneration") or 0),
        desired=int(desired),
        replicas=int(status.get("replicas") or 0),
        updated=int(status.get("updatedReplicas") or 0),
        available=int(status.get("availableReplicas") or 0),
        observed=int(status.get("observedGeneration") or 0) >= generation,
        since=work.status_at,
    )


def _released_times(rollout: Rollout) -> dict[str, datetime]:
    return {name: datetime.fromisoformat(at) for name, at in rollout.released.items()}


def judge(rollout: Rollout, now: datetime | None = None) -> RolloutPlan | None:
    """Where the rollout stands now, cluster by cluster (None when its policy no longer stages rollouts)."""
    binding = rollout.binding
    spec = spec_of(binding)
    if spec is None:
        return None
    works = {w.cluster_name: member_status(w) for w in binding.works.all() if not w.deleting}
    waves = plan_waves(spec, cluster_snapshots(binding), _targets(binding))
    return plan_rollout(
        spec,
        waves,
        rollout.to_revision.generation,
        works,
        _released_times(rollout),
        rollout.phase,
        now or timezone.now(),
        previous_revision=rollout.from_revision.generation,
    )


def active_binding_ids(work_ids: list[int] | None = None, binding_ids: list[int] | None = None) -> list[int]:
    """Bindings with a rollout in progress (among those of `work_ids` or `binding_ids`, when given)."""
    rollouts = Rollout.objects.filter(phase=PROGRESSING)
    if work_ids is not None:
        rollouts = rollouts.filter(binding__works__pk__in=work_ids)
    if binding_ids is not None:
        rollouts = rollouts.filter(binding_id__in=binding_ids)
    return sorted(set(rollouts.values_list("binding_id", flat=True)))


def advance_rollout(binding_id: int, now: datetime | None = None) -> bool:
    """Move the binding's rollout on: release the next wave, halt on a failure, finish when all are
    through. True when clusters were released (their Works must be synced)."""
    now = now or timezone.now()
    with transaction.atomic():
        binding = ResourceBinding.objects.select_for_update(of=("self",)).filter(pk=binding_id).first()
        if binding is None:
            return False
        rollout = latest_rollout(binding)
        if rollout is None or rollout.phase != PROGRESSING:
            return False
        plan = judge(rollout, now)
        if plan is None:
            _finish(
                rollout, COMPLETE, "the policy no longer stages rollouts: every cluster gets the revision"
            )
            return True
        if plan.failed:
            _halt(rollout, plan)
            return False
        if plan.release:
            _release(rollout, plan, now)
            return True
        if plan.complete:
            _finish(rollout, COMPLETE, f"every wave runs revision {rollout.to_revision.generation}")
    return False


def _release(rollout: Rollout, plan: RolloutPlan, now: datetime) -> None:
    binding = rollout.binding
    rollout.released = {**rollout.released, **{name: now.isoformat() for name in plan.release}}
    wave = plan.current_wave
    rollout.message = f"wave {wave} updating: {', '.join(plan.release)}"
    rollout.save(update_fields=["released", "message", "updated_at"])
    revision = rollout.to_revision.generation
    events.record(
        binding,
        "Normal",
        "RolloutWaveStarted",
        f"wave {wave}: {', '.join(plan.release)} updated to revision {revision}",
        {"wave": wave, "clusters": list(plan.release), "revision": revision},
    )
    audit.record(
        None,
        "rollout.wave",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=f"Wave {wave} of the rollout to revision {revision} started: {', '.join(plan.release)}",
        changes={"rollout": {"wave": wave, "released": list(plan.release)}},
    )


def _halt(rollout: Rollout, plan: RolloutPlan) -> None:
    binding = rollout.binding
    rollout.phase = HALTED
    rollout.failed = [stage.as_dict() for stage in plan.failed]
    first = plan.failed[0]
    rollout.message = f"halted in wave {first.wave}: {first.cluster} {first.message}"
    rollout.save(update_fields=["phase", "failed", "message", "updated_at"])
    events.record(binding, "Warning", "RolloutHalted", rollout.message, {"failed": rollout.failed})
    audit.record(
        None,
        "rollout.halt",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=f"Rollout halted: {rollout.message}",
        changes={"rollout": {"phase": HALTED, "failed": [stage.cluster for stage in plan.failed]}},
    )
    recording.count(HALTS_METRIC, {"namespace": binding.namespace, "name": binding.name})


def _finish(rollout: Rollout, phase: str, message: str) -> None:
    binding = rollout.binding
    rollout.phase, rollout.message, rollout.finished_at = phase, message, timezone.now()
    rollout.save(update_fields=["phase", "message", "finished_at", "updated_at"])
    events.record(binding, "Normal", "RolloutComplete", message)
    audit.record(
        None,
        "rollout.complete",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=f"Rollout of revision {rollout.to_revision.generation} complete: {message}",
        changes={"rollout": {"phase": phase}},
    )


# ------------------------------------------------------------------------------- an operator's steps

STEPS = {
    "pause": ((PROGRESSING,), PAUSED, "RolloutPaused", "paused by {user}"),
    "resume": ((PAUSED, HALTED), PROGRESSING, "RolloutResumed", "resumed by {user}"),
    "abort": (
        (PROGRESSING, PAUSED, HALTED),
        ABORTED,
        "RolloutAborted",
        "aborted by {user}: every cluster back on revision {previous}",
    ),
}


def step_rollout(rollout_id: int, step: str, username: str, now: datetime | None = None) -> Rollout:
    """Pause, resume or abort a rollout. Resuming gives the clusters still updating a fresh deadline;
    aborting puts every updated cluster back on the previous revision. Raises RolloutRefused."""
    now = now or timezone.now()
    if step not in STEPS:
        raise RolloutRefused(f"unknown step {step!r}: one of {', '.join(STEPS)}")
    allowed, phase, reason, wording = STEPS[step]
    with transaction.atomic():
        rollout = (
            Rollout.objects.select_for_update()
            .select_related("binding", "from_revision", "to_revision")
            .filter(pk=rollout_id)
            .first()
        )
        if rollout is None:
            raise RolloutRefused("no such rollout")
        if rollout.phase not in allowed:
            raise RolloutRefused(f"a {rollout.phase.lower()} rollout cannot be told to {step}")
        if step == "resume":
            plan = judge(rollout, now)
            unfinished = {
                name for name, stage in (plan.stages if plan else {}).items() if stage.state != "updated"
            }
            rollout.released = {
                name: (now.isoformat() if name in unfinished else at) for name, at in rollout.released.items()
            }
            rollout.failed = []
        message = wording.format(user=username or "the system", previous=rollout.from_revision.generation)
        rollout.phase, rollout.message = phase, message
        if phase == ABORTED:
            rollout.finished_at = now
        rollout.save()
        events.record(rollout.binding, "Normal", reason, message)
    return rollout


def allowed_steps(rollout: Rollout) -> list[str]:
    """The steps an operator may take on the rollout as it stands, in the order the page shows them."""
    return [step for step, (phases, *_rest) in STEPS.items() if rollout.phase in phases]
