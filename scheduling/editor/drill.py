"""The failure drill: mark a cluster NotReady or NoExecute-tainted in a copy of the fleet and re-plan.

Nothing changes for real. The consequences follow Karmada: NotReady only adds a NoSchedule taint, so
replicas already there stay; a NoExecute taint evicts each workload that does not tolerate it (at
once, or after its tolerationSeconds), gracefully by default, and the scheduler re-places it with the
planner on the modified snapshots.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scheduling import charts
from scheduling.controllers.failover import eviction_time, purge_mode
from scheduling.controllers.planner_inputs import planner_binding, planner_placement
from scheduling.editor import inventory, wording
from scheduling.editor.whatif import Move
from scheduling.models import ResourceBinding
from scheduling.planner import ClusterSnapshot, EvictionTask, InputError, Taint, plan

NOT_READY = "NotReady"
NO_EXECUTE = "NoExecute"
CONDITIONS = (NOT_READY, NO_EXECUTE)
DRILL_TAINT = Taint("drill.karmada-ui.io/failure", "", "NoExecute")
# Workloads re-planned and drawn per page: the page stays small (well under 1 MB) whatever the fleet.
PAGE_SIZE = 20


@dataclass
class Outcome:
    """What happens to one workload that has replicas on the drilled cluster."""

    label: str
    template_pk: int
    moves: list[Move] = field(default_factory=list)
    when: str = ""
    notes: list[str] = field(default_factory=list)
    figure: dict[str, Any] = field(default_factory=dict)

    @property
    def figure_id(self) -> str:
        return f"drill-figure-{self.template_pk}"


@dataclass
class Drill:
    """The workloads on the drilled cluster in all (summary), and the outcomes of one page of them."""

    cluster: str
    condition: str
    outcomes: list[Outcome] = field(default_factory=list)
    problem: str = ""
    affected: int = 0  # workloads with replicas on the cluster
    replicas_here: int = 0  # their replicas on it
    page: Page | None = None


def drilled_fleet(snapshots: list[ClusterSnapshot], cluster: str, condition: str) -> list[ClusterSnapshot]:
    """The fleet as the scheduler would see it with the cluster NotReady or carrying a NoExecute taint."""
    changed = []
    for snapshot in snapshots:
        if snapshot.name != cluster:
            changed.append(snapshot)
        elif condition == NOT_READY:
            changed.append(replace(snapshot, ready="False"))
        else:
            changed.append(replace(snapshot, taints=(*snapshot.taints, DRILL_TAINT)))
    return changed


def run_drill(cluster: str, condition: str, now: datetime | None = None, page: object = 1) -> Drill:
    """The workloads on ``cluster`` counted, and for one page of them where their replicas would be
    after the simulated failure, and when."""
    now = now or timezone.now()
    drill = Drill(cluster, condition)
    snapshots = inventory.fleet()
    if cluster not in {s.name for s in snapshots}:
        drill.problem = _("There is no cluster named %(name)s.") % {"name": cluster}
        return drill
    if condition not in CONDITIONS:
        drill.problem = _("Choose NotReady or NoExecute.")
        return drill
    fleet = drilled_fleet(snapshots, cluster, condition)
    # One light query for the summary: only the placement of each binding, not its template or policy.
    here: list[int] = []
    for pk, clusters in ResourceBinding.objects.order_by("namespace", "name", "pk").values_list(
        "pk", "clusters"
    ):
        replicas = {entry.get("name"): int(entry.get("replicas") or 0) for entry in clusters or []}
        if cluster in replicas:
            here.append(pk)
            drill.replicas_here += replicas[cluster]
    drill.affected = len(here)
    drill.page = Paginator(here, PAGE_SIZE).get_page(page)
    shown = ResourceBinding.objects.select_related("template", "policy").in_bulk(drill.page.object_list)
    for pk in drill.page.object_list:
        binding = shown.get(pk)
        if binding is None:  # deleted since the summary was read
            continue
        try:
            outcome = _outcome(binding, fleet, cluster, condition, now)
        except InputError as exc:
            outcome = Outcome(inventory.template_label(binding.template), binding.template.pk)
            outcome.notes.append(f"{exc.path}: {exc.message}")
        drill.outcomes.append(outcome)
    return drill


def _outcome(
    binding: ResourceBinding, fleet: list[ClusterSnapshot], cluster: str, condition: str, now: datetime
) -> Outcome:
    outcome = Outcome(inventory.template_label(binding.template), binding.template.pk)
    before = binding.target_replicas()
    after = dict(before)
    base = planner_binding(binding)
    placement = planner_placement(binding)
    if condition == NOT_READY:
        outcome.when = _("No move.")
        outcome.notes.append(
            _(
                "Karmada only adds the NoSchedule taint cluster.karmada.io/not-ready: the replicas already "
                "on %(cluster)s stay there, and new workloads and scale-ups go elsewhere."
            )
            % {"cluster": cluster}
        )
        fresh = plan(fleet, placement, replace(base, previous=(), eviction_tasks=()))
        if fresh.ok:
            outcome.notes.append(
                _("Placed from scratch now, it would get %(split)s.")
                % {"split": wording.split_text(fresh.replicas())}
            )
    else:
        after = _evict(outcome, binding, fleet, cluster, now)
    names = list(dict.fromkeys([*before, *after]))
    outcome.moves = [Move(name, before.get(name, 0), after.get(name, 0)) for name in names]
    outcome.figure = charts.figure_data(
        charts.split_figure(
            names,
            [after.get(name, 0) for name in names],
            [before.get(name, 0) for name in names],
            proposed_label=_("after the drill"),
            current_label=_("now"),
        )
    )
    return outcome


GRACEFUL_NOTE = gettext_lazy(
    "Graceful eviction: the copy on %(cluster)s keeps running until every new cluster reports the "
    "workload healthy, or for at most %(minutes)s minutes."
)


def _evict(
    outcome: Outcome, binding: ResourceBinding, fleet: list[ClusterSnapshot], cluster: str, now: datetime
) -> dict[str, int]:
    """The taint manager's verdict for the drill taint, then the scheduler's re-placement after eviction."""
    before = binding.target_replicas()
    placement = planner_placement(binding)
    verdict = eviction_time(
        [{"key": DRILL_TAINT.key, "effect": NO_EXECUTE}], placement.cluster_tolerations, now
    )
    if verdict.at is None:
        outcome.when = _("Never: the policy tolerates the NoExecute taint without a time limit.")
        return before
    seconds = int((verdict.at - now).total_seconds())
    if seconds <= 0:
        outcome.when = _("At once: the policy does not tolerate the NoExecute taint.")
    else:
        outcome.when = _("After %(seconds)s s, when its tolerationSeconds run out.") % {"seconds": seconds}
    mode = purge_mode(binding)
    base = planner_binding(binding)
    evicted = replace(
        base,
        previous=tuple(t for t in base.previous if t.name != cluster),
        eviction_tasks=(*base.eviction_tasks, EvictionTask(cluster, before[cluster], mode)),
    )
    result = plan(fleet, placement, evicted)
    if result.error is not None:
        outcome.notes.append(_("Not re-scheduled: %(message)s") % {"message": result.error.message})
    if mode == "Directly":
        note = _("Purge mode Directly: the copy on %(cluster)s is deleted at once.") % {"cluster": cluster}
    else:
        minutes = round(settings.SCHEDULING_GRACEFUL_EVICTION_TIMEOUT / 60)
        note = str(GRACEFUL_NOTE) % {"cluster": cluster, "minutes": minutes}
    outcome.notes.append(note)
    return result.replicas()
