"""What applying a policy would do: the workloads it would capture, who holds them now, and each move."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from scheduling.controllers import detector
from scheduling.editor import inventory
from scheduling.editor.live_preview import Preview, build_preview
from scheduling.karmada.interpreter import workload_of
from scheduling.karmada.suspension import is_suspended
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate
from scheduling.planner import ClusterSnapshot, InputError


@dataclass
class Move:
    cluster: str
    before: int
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def change(self) -> str:
        """added, removed, changed or same."""
        if self.before == 0 and self.after > 0:
            return "added"
        if self.after == 0 and self.before > 0:
            return "removed"
        return "changed" if self.delta else "same"


@dataclass
class Captured:
    """A workload the policy would hold after apply, with its placement before and after."""

    template: ResourceTemplate
    label: str
    holder: str
    preview: Preview | None = None
    moves: list[Move] = field(default_factory=list)

    @property
    def before(self) -> dict[str, int]:
        return {m.cluster: m.before for m in self.moves if m.before}

    @property
    def after(self) -> dict[str, int]:
        return {m.cluster: m.after for m in self.moves if m.after}

    @property
    def suspended(self) -> bool:
        """Its binding holds scheduling or dispatching: applying the policy changes nothing there yet."""
        binding = ResourceBinding.objects.filter(template=self.template).only("suspension").first()
        return binding is not None and is_suspended(binding.suspension)

    @property
    def moved(self) -> int:
        """Replicas that change cluster (the sum of the increases)."""
        return sum(m.delta for m in self.moves if m.delta > 0)


@dataclass
class Untouched:
    """A workload the policy's selectors match that stays with the policy that holds it."""

    label: str
    holder: str
    reason: str


@dataclass
class WhatIf:
    captured: list[Captured] = field(default_factory=list)
    untouched: list[Untouched] = field(default_factory=list)
    problem: str = ""


def _label(row: PropagationPolicy | None) -> str:
    if row is None:
        return ""
    return f"{row.kind} {row.namespace}/{row.name}" if row.namespace else f"{row.kind} {row.name}"


def capture(doc: dict[str, Any]) -> WhatIf:
    """Which templates the detector would give this policy once applied, and which stay where they are."""
    result = WhatIf()
    try:
        row = inventory.draft_row(doc)
        mine = detector.candidate(row)
    except (InputError, KeyError, TypeError, ValueError) as exc:
        result.problem = str(exc)
        return result
    candidates = [c for c in detector.load_candidates() if row.pk is None or c.row.pk != row.pk] + [mine]
    templates = ResourceTemplate.objects.filter(deleting_since__isnull=True).select_related("policy")
    for template in templates.order_by("namespace", "name", "kind"):
        try:
            workload = workload_of(template)
        except InputError:
            continue
        if not mine.matches(workload):
            continue
        if row.kind == "PropagationPolicy" and workload.namespace != row.namespace:
            continue
        label = inventory.template_label(template)
        winner = detector.choose_policy(template, workload, candidates)
        if winner is row:
            held_by_self = row.pk is not None and template.policy_id == row.pk
            holder = _("this policy") if held_by_self else _label(template.policy)
            result.captured.append(Captured(template, label, holder))
        elif template.policy_id is not None and template.policy_id == getattr(winner, "pk", None):
            reason = _("it is claimed already and this policy may not preempt it")
            result.untouched.append(Untouched(label, _label(winner), reason))
        else:
            reason = _("a policy with higher precedence matches it")
            result.untouched.append(Untouched(label, _label(winner), reason))
    return result


def build_whatif(doc: dict[str, Any], snapshots: Sequence[ClusterSnapshot]) -> WhatIf:
    """The capture, and for every captured workload the planner's placement beside its current one."""
    result = capture(doc)
    for item in result.captured:
        workload = inventory.workload_input(item.template, doc)
        if workload is None:
            continue
        item.preview = build_preview(doc, snapshots, workload)
        before = {t.name: t.replicas for t in workload.current or ()}
        plan = item.preview.plan
        after = plan.replicas() if plan is not None else before
        names = list(dict.fromkeys([*before, *after]))
        item.moves = [Move(name, before.get(name, 0), after.get(name, 0)) for name in names]
    return result
