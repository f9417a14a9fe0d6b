"""The live preview: the planner's own plan for a policy and a workload, put into rows, words and a chart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext as _

from scheduling import charts
from scheduling.editor import policy, wording
from scheduling.planner import (
    LARGEST_REMAINDER,
    WEBSTER,
    Binding,
    ClusterSnapshot,
    InputError,
    Placement,
    Plan,
    QuotaSnapshot,
    TargetCluster,
    WorkloadPeer,
    plan,
    plan_waves,
    rollout_spec_from_annotations,
    split_cost,
)


@dataclass(frozen=True)
class WorkloadInput:
    """The workload a preview divides: a replica count, or a real workload's own planner input.

    ``base`` and ``placement`` are the planner Binding and Placement the scheduler builds for the
    workload once the edited policy holds it (UID, requirements, previous result, eviction tasks,
    fresh mode); ``current`` its placement now, or None when it has none. Without ``placement`` the
    policy's own placement is read (a bare replica count, or a policy that does not parse yet).
    ``quotas`` are the namespace's FederatedResourceQuotas with its usage, ``peers`` the
    ResourceBindings the workload affinity filters compare it with.
    """

    replicas: int
    label: str = ""
    base: Binding | None = None
    current: tuple[TargetCluster, ...] | None = None
    placement: Placement | None = None
    quotas: tuple[QuotaSnapshot, ...] = ()
    peers: tuple[WorkloadPeer, ...] = ()

    def binding(self) -> Binding:
        """The binding the scheduler would see once the policy applies (steady mode, current result kept)."""
        if self.base is None:
            return Binding(replicas=self.replicas, previous=self.current or ())
        return replace(self.base, replicas=self.replicas)


@dataclass(frozen=True)
class ClusterRow:
    name: str
    proposed: int
    current: int
    weight: int | None
    available: int | None
    cost_hour: float | None = None
    wave: int | None = None

    @property
    def delta(self) -> int:
        return self.proposed - self.current

    @property
    def over_capacity(self) -> bool:
        return self.available is not None and self.proposed > self.available


@dataclass(frozen=True)
class WhyNot:
    cluster: str
    reasons: tuple[tuple[str, str], ...]  # (filter, sentence)


@dataclass
class Preview:
    """Everything the preview panel shows; ``plan`` is the planner's answer itself."""

    workload: WorkloadInput
    problem: str | None = None
    plan: Plan | None = None
    method: str = WEBSTER
    rows: list[ClusterRow] = field(default_factory=list)
    rounding: list[str] = field(default_factory=list)
    comparison: str = ""
    warnings: list[str] = field(default_factory=list)
    why_not: list[WhyNot] = field(default_factory=list)
    matched: list[str] = field(default_factory=list)
    total: int = 0
    figure: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    quota: dict[str, Any] | None = None
    quota_lines: list[str] = field(default_factory=list)
    cost: dict[str, Any] | None = None
    cost_lines: list[str] = field(default_factory=list)
    # the staged rollout's wave plan over the proposed split: [{wave, rule, clusters}]
    waves: list[dict[str, Any]] = field(default_factory=list)

    @property
    def error(self) -> dict[str, str] | None:
        return None if self.plan is None or self.plan.error is None else self.plan.error.as_dict()

    @property
    def has_current(self) -> bool:
        return self.workload.current is not None

    @property
    def proposed(self) -> dict[str, int]:
        return {row.name: row.proposed for row in self.rows if row.proposed}


def load_placement(doc: dict[str, Any], method: str | None = None) -> Placement:
    """The policy's placement as the planner reads it; raises InputError on malformed input."""
    return Placement.from_dict(policy.placement(doc), division_method=method or policy.division_method(doc))


def matching_clusters(placement: Placement, snapshots: Sequence[ClusterSnapshot]) -> list[str]:
    """Clusters the placement's cluster affinity (or its first affinity group) matches, taints aside."""
    affinity = placement.cluster_affinity
    if affinity is None and placement.cluster_affinities:
        affinity = placement.cluster_affinities[0].affinity
    if affinity is None:
        return [s.name for s in snapshots]
    return [s.name for s in snapshots if affinity.matches(s)]


def _wave_plan(
    doc: dict[str, Any], snapshots: Sequence[ClusterSnapshot], result: Plan
) -> list[dict[str, Any]]:
    """The waves a staged rollout of this split would go in (none when the policy stages nothing, or its
    annotations do not parse: the checks beside the form say why)."""
    try:
        spec = rollout_spec_from_annotations(policy.as_map(policy.metadata(doc).get("annotations")))
    except InputError:
        return []
    if spec is None or result.error is not None:
        return []
    is_workload = result.explanation.get("workload", {}).get("is_workload", True)
    targets = [t.name for t in result.clusters if t.replicas > 0 or not is_workload]
    return [wave.as_dict() for wave in plan_waves(spec, snapshots, targets)]


def build_preview(
    doc: dict[str, Any], snapshots: Sequence[ClusterSnapshot], workload: WorkloadInput
) -> Preview:
    """Plan the workload under the policy with the planner, under both division methods, and explain it."""
    preview = Preview(workload=workload, total=len(snapshots))
    try:
        placement = workload.placement or load_placement(doc)
    except InputError as exc:
        preview.problem = f"{exc.path}: {exc.message}" if exc.path else exc.message
        return preview
    preview.method = placement.division_method
    preview.matched = matching_clusters(placement, snapshots)
    binding = workload.binding()
    result = plan(snapshots, placement, binding, peers=workload.peers, quotas=workload.quotas)
    preview.plan = result
    explanation = result.explanation
    entries = {entry["name"]: entry for entry in explanation.get("clusters", [])}
    preview.quota = explanation.get("quota")
    refused = preview.quota.get("proposed") if preview.quota and preview.quota.get("exceeded") else None
    # A split a quota refuses is still shown, marked as over: it is what the scheduler would write.
    if refused is not None:
        proposed = {entry["name"]: entry["replicas"] for entry in refused}
    else:
        proposed = result.replicas() if result.ok else {}
    current = {t.name: t.replicas for t in workload.current or ()}
    preview.cost = split_cost(
        snapshots, binding.requirements, proposed, current if workload.current is not None else None
    )
    costs = {row["cluster"]: row["hour"] for row in (preview.cost or {}).get("clusters", [])}
    preview.waves = _wave_plan(doc, snapshots, result)
    wave_of = {name: wave["wave"] for wave in preview.waves for name in wave["clusters"]}
    for snapshot in snapshots:
        entry = entries.get(snapshot.name, {})
        if (
            snapshot.name in proposed
            or snapshot.name in current
            or entry.get("outcome") in ("assigned", "selected")
        ):
            preview.rows.append(
                ClusterRow(
                    name=snapshot.name,
                    proposed=proposed.get(snapshot.name, 0),
                    current=current.get(snapshot.name, 0),
                    weight=entry.get("weight"),
                    available=entry.get("available"),
                    cost_hour=costs.get(snapshot.name),
                    wave=wave_of.get(snapshot.name),
                )
            )
        if snapshot.name not in proposed:
            preview.why_not.append(_why_not(snapshot.name, entry, result.strategy))
    for division in explanation.get("divisions", []):
        for seat in division.get("seats", []):
            preview.rounding.append(wording.seat_sentence(seat, division.get("method", preview.method)))
        if not division.get("seats") and division.get("replicas"):
            preview.rounding.append(_uncontested(division))
    preview.quota_lines = wording.quota_lines(preview.quota)
    preview.cost_lines = wording.cost_sentences(preview.cost)
    modelled = {s.name for s in snapshots if s.resource_summary is not None or s.nodes is not None}
    preview.warnings = _capacity_warnings([r for r in preview.rows if r.name in modelled], result.strategy)
    if result.ok and explanation.get("divisions"):
        preview.comparison = _comparison(snapshots, placement, binding, result, workload)
    preview.summary = _summary(preview)
    preview.figure = charts.figure_data(
        charts.split_figure(
            [row.name for row in preview.rows],
            [row.proposed for row in preview.rows],
            [row.current for row in preview.rows] if preview.has_current else None,
            proposed_label=_("proposed"),
            current_label=_("now"),
            over_capacity=[row.over_capacity for row in preview.rows],
        )
    )
    return preview


def _why_not(name: str, entry: dict[str, Any], strategy: str) -> WhyNot:
    outcome = entry.get("outcome")
    if outcome == "excluded":
        reasons = tuple((r.get("filter", ""), wording.reason_text(r)) for r in entry.get("reasons", []))
    elif outcome == "not_selected":
        reasons = (("SpreadConstraint", _("the spread constraints chose other clusters")),)
    elif strategy == "StaticWeight" and not entry.get("weight"):
        reasons = (("StaticWeight", _("no static weight rule matches it (weight 0)")),)
    elif outcome == "selected":
        reasons = (("Division", _("selected, but the division gave it no replicas")),)
    else:
        reasons = (("", _("the plan failed before this cluster was considered")),)
    return WhyNot(name, reasons)


def _uncontested(division: dict[str, Any]) -> str:
    """A division where no replica was contested: every share rounds one way only."""
    weights = division.get("weights", {})
    total = sum(weights.values()) or 1
    seats = division["replicas"]
    result = division.get("result", {})
    shares = ", ".join(
        f"{name} {weight * seats / total:.2f} → {result.get(name, 0)}" for name, weight in weights.items()
    )
    return _("No replica was contested: each cluster gets its share rounded (%(shares)s).") % {
        "shares": shares
    }


def _capacity_warnings(rows: list[ClusterRow], strategy: str) -> list[str]:
    warnings = []
    for row in rows:
        if not row.over_capacity:
            continue
        text = _(
            "%(cluster)s has room for %(available)s replicas of this workload but its share is %(share)s."
        ) % {
            "cluster": row.name,
            "available": row.available,
            "share": row.proposed,
        }
        if strategy == "StaticWeight":
            text += " " + _("Static weights ignore capacity, so the rest would stay Pending there.")
        warnings.append(text)
    return warnings


def _comparison(
    snapshots: Sequence[ClusterSnapshot],
    placement: Placement,
    binding: Binding,
    result: Plan,
    workload: WorkloadInput,
) -> str:
    """The other division method's split, and why it differs (or that it does not)."""
    other_method = LARGEST_REMAINDER if placement.division_method == WEBSTER else WEBSTER
    other = plan(
        snapshots,
        _with_method(placement, other_method),
        binding,
        peers=workload.peers,
        quotas=workload.quotas,
    )
    names = {
        "other": wording.method_name(other_method),
        "this": wording.method_name(placement.division_method),
    }
    if other.ok and other.replicas() == result.replicas():
        return wording.capitalised(_("%(other)s gives the same split.") % names)
    if not other.ok:
        message = other.error.message if other.error else ""
        return wording.capitalised(_("%(other)s fails: %(message)s") % {**names, "message": message})
    division = result.explanation["divisions"][-1]
    weights = division.get("weights", {})
    total = sum(weights.values()) or 1
    seats = division.get("replicas", 0)
    quotas = ", ".join(f"{name} {weight * seats / total:.2f}" for name, weight in weights.items())
    split = {name: other.replicas().get(name, 0) for name in sorted({*weights, *other.replicas()})}
    text = wording.capitalised(
        _("%(other)s would give %(split)s.") % {**names, "split": wording.split_text(split)}
    )
    text += " " + _(
        "The exact shares are %(quotas)s. Largest remainder gives each cluster the whole part of its "
        "share and the left-over replicas to the largest fractions; Webster gives each next replica to "
        "the highest weight ÷ (2 × replicas + 1), which rounds every share at one half and treats small "  # noqa: RUF001
        "clusters more evenly."
    ) % {"quotas": quotas}
    return text


def _with_method(placement: Placement, method: str) -> Placement:
    return replace(placement, division_method=method)


def _summary(preview: Preview) -> str:
    if preview.plan is None:
        return preview.problem or ""
    if preview.quota and preview.quota.get("exceeded"):
        return _(
            "The split %(split)s would exceed the namespace's quota, so the scheduler keeps the current one."
        ) % {"split": wording.split_text(preview.proposed)}
    if preview.plan.error is not None:
        return _("Not scheduled: %(message)s") % {"message": preview.plan.error.message}
    if preview.plan.strategy == "Duplicated":
        return _("Every placed cluster runs all %(replicas)s replicas: %(clusters)s.") % {
            "replicas": preview.workload.replicas,
            "clusters": ", ".join(preview.proposed) or _("nothing"),
        }
    return _("Proposed split for %(replicas)s replicas: %(split)s.") % {
        "replicas": preview.workload.replicas,
        "split": wording.split_text(preview.proposed),
    }
