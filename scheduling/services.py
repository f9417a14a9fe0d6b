"""The verbs other layers call: apply YAML, delete a template, rebalance workloads."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import audit
from scheduling import tasks
from scheduling.controllers.apply import ApplyResult, apply_documents, parse_yaml
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate


def apply_yaml(text: str, user: Any = None) -> ApplyResult:
    """Apply multi-document YAML in one transaction; raise ApplyError naming the bad document.

    After the commit the detector runs: over every template when a policy changed, else over the
    templates that changed.
    """
    with transaction.atomic():
        result = apply_documents(parse_yaml(text), user=user)
        if result.policies_changed:
            tasks.after_commit(tasks.detect_all)
        else:
            for template_id in result.template_ids:
                tasks.after_commit(tasks.detect_template, template_id)
    return result


def delete_template(template: ResourceTemplate, user: Any = None) -> None:
    """Delete a template: its works go first (released when preserved), then the binding and the row."""
    with transaction.atomic():
        ResourceTemplate.objects.filter(pk=template.pk).update(deleting_since=timezone.now())
        audit.record(user, "delete", template.kind, template.name, namespace=template.namespace)
        binding = ResourceBinding.objects.filter(template=template).first()
        if binding is None:
            template.delete()
        else:
            tasks.after_commit(tasks.sync_binding, binding.pk)


def rebalance(bindings: list[ResourceBinding], user: Any = None, now: datetime | None = None) -> int:
    """WorkloadRebalancer: set rescheduleTriggeredAt so the scheduler runs in fresh mode; returns how many."""
    now = now or timezone.now()
    count = 0
    with transaction.atomic():
        for binding in bindings:
            if binding.reschedule_triggered_at and binding.reschedule_triggered_at >= now:
                continue
            ResourceBinding.objects.filter(pk=binding.pk).update(reschedule_triggered_at=now)
            audit.record(
                user,
                "rebalance",
                binding.template.kind,
                binding.template.name,
                namespace=binding.namespace,
                summary="fresh reschedule requested (WorkloadRebalancer)",
            )
            tasks.after_commit(tasks.schedule_binding, binding.pk)
            count += 1
    return count


def rebalance_policy(policy: PropagationPolicy, user: Any = None, now: datetime | None = None) -> int:
    """Rebalance every workload a policy holds."""
    return rebalance(list(policy.bindings.select_related("template")), user=user, now=now)
