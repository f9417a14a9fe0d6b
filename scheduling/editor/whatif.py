"""What applying a policy would do: the workloads it would capture, who holds them now, and each move."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from scheduling.editor import inventory, policy
from scheduling.editor.preview import Preview, build_preview
from scheduling.exporting import propagation_policy_document
from scheduling.karmada_yaml import Document, Policy, match_policy, parse_policy, parse_workload
from scheduling.models import CLUSTER_PROPAGATION_POLICY, PropagationPolicy, ResourceTemplate
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

    label: str
    kind: str
    holder: str
    preview: Preview
    moves: list[Move] = field(default_factory=list)

    @property
    def before(self) -> dict[str, int]:
        return {m.cluster: m.before for m in self.moves if m.before}

    @property
    def after(self) -> dict[str, int]:
        return {m.cluster: m.after for m in self.moves if m.after}

    @property
    def moved(self) -> int:
        """Replicas that change cluster (the sum of the increases)."""
        return sum(m.delta for m in self.moves if m.delta > 0)


@dataclass
class Untouched:
    """A workload the policy's selectors match that stays with the policy holding it now."""

    label: str
    holder: str
    reason: str


@dataclass
class WhatIf:
    captured: list[Captured] = field(default_factory=list)
    untouched: list[Untouched] = field(default_factory=list)
    problem: str = ""


def _policy_label(kind: str, namespace: str, name: str) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _parsed(doc: dict[str, Any], source: str) -> Policy:
    return parse_policy(Document(source, 0, doc))


def _may_preempt(draft: Policy, holder: PropagationPolicy, doc: dict[str, Any]) -> bool:
    """Karmada's preemption: only with preemption Always, over a lower priority (a PP over any CPP)."""
    if policy.spec(doc).get("preemption") != "Always":
        return False
    if draft.kind == "PropagationPolicy" and holder.kind == CLUSTER_PROPAGATION_POLICY:
        return True
    return draft.kind == holder.kind and draft.priority > holder.priority


def build_whatif(doc: dict[str, Any], snapshots: Sequence[ClusterSnapshot]) -> WhatIf:
    """Every template the policy would claim (the detector's rules) and the planner's placement for each."""
    result = WhatIf()
    try:
        draft = _parsed(doc, "editor")
    except InputError as exc:
        result.problem = f"{exc.path}: {exc.message}"
        return result
    others = []
    for stored in PropagationPolicy.objects.exclude(
        kind=draft.kind, namespace=draft.namespace, name=draft.name
    ):
        try:
            others.append(_parsed(propagation_policy_document(stored), "stored"))
        except InputError:
            continue
    templates = ResourceTemplate.objects.filter(deleting_since__isnull=True).select_related("policy")
    for template in templates.order_by("namespace", "name"):
        try:
            workload = parse_workload(Document("template", 0, template.manifest))
        except InputError:
            continue
        if match_policy([draft], workload) is not draft:
            continue
        label = f"{template.kind} {workload.key}"
        holder = template.policy
        holder_label = _policy_label(holder.kind, holder.namespace, holder.name) if holder else ""
        is_self = holder is not None and (holder.kind, holder.namespace, holder.name) == (
            draft.kind,
            draft.namespace,
            draft.name,
        )
        if holder is not None and not is_self and not _may_preempt(draft, holder, doc):
            reason = _("it is claimed already and this policy does not preempt it")
            result.untouched.append(Untouched(label, holder_label, reason))
            continue
        if holder is None and match_policy([*others, draft], workload) is not draft:
            winner = match_policy([*others, draft], workload)
            reason = _("a policy with higher precedence matches it")
            result.untouched.append(
                Untouched(label, _policy_label(winner.kind, winner.namespace, winner.name), reason)
            )
            continue
        result.captured.append(_captured(doc, snapshots, template, label, holder_label))
    return result


def _captured(
    doc: dict[str, Any],
    snapshots: Sequence[ClusterSnapshot],
    template: ResourceTemplate,
    label: str,
    holder: str,
) -> Captured:
    workload = inventory.workload_input(template)
    assert workload is not None
    preview = build_preview(doc, snapshots, workload)
    before = {t.name: t.replicas for t in workload.current or ()}
    after = preview.plan.replicas() if preview.plan is not None else before
    names = list(dict.fromkeys([*before, *after]))
    moves = [Move(name, before.get(name, 0), after.get(name, 0)) for name in names]
    return Captured(label=label, kind=template.kind, holder=holder, preview=preview, moves=moves)
