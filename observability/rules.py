"""The alert rules, defined once: the export and the built-in evaluator are both generated from them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

from observability.expr import Arithmetic, Compare, Expr, Increase, Metric, SumBy, format_duration

WINDOW = 600  # counters are judged over the last 10 minutes


@dataclass(frozen=True)
class Rule:
    alert: str
    group: str
    expr: Expr
    for_seconds: int
    severity: str
    # Annotation templates as Prometheus fills them; in English here (the export and notifications),
    # translated for the pages. Literal per cent signs are doubled; `params` fills the %(name)s fields.
    summary: str
    description: str
    params: tuple[tuple[str, str], ...] = ()

    @property
    def labels(self) -> dict[str, str]:
        return {"severity": self.severity}

    @property
    def annotations(self) -> dict[str, str]:
        params = dict(self.params)
        return {"summary": self.summary % params, "description": self.description % params}

    def localized_annotations(self) -> dict[str, str]:
        params = dict(self.params)
        return {"summary": gettext(self.summary) % params, "description": gettext(self.description) % params}

    def as_prometheus(self) -> dict[str, Any]:
        """The rule as an entry of a Prometheus rule group; `for` is left out when it is zero."""
        entry: dict[str, Any] = {"alert": self.alert, "expr": self.expr.promql()}
        if self.for_seconds:
            entry["for"] = format_duration(self.for_seconds)
        entry["labels"] = self.labels
        entry["annotations"] = self.annotations
        return entry


def alert_rules() -> list[Rule]:
    """The rules with today's settings (thresholds and `for` durations come from the environment)."""
    cpu_threshold = settings.ALERT_CLUSTER_CPU_THRESHOLD
    return [
        Rule(
            alert="ClusterUnhealthy",
            group="karmada-ui.clusters",
            expr=Compare(Metric("cluster_ready_state"), "==", 0),
            for_seconds=settings.ALERT_CLUSTER_UNHEALTHY_FOR,
            severity="critical",
            summary=gettext_noop("Cluster {{ $labels.member_cluster }} is not Ready"),
            description=gettext_noop(
                "Member cluster {{ $labels.member_cluster }} has not been Ready (cluster_ready_state == 0). "
                "New workloads are not scheduled to it while it carries the not-ready taint."
            ),
        ),
        Rule(
            alert="ClusterCPUHigh",
            group="karmada-ui.clusters",
            expr=Compare(
                Arithmetic(
                    Arithmetic(
                        Metric("cluster_cpu_allocated_number"), "/", Metric("cluster_cpu_allocatable_number")
                    ),
                    "*",
                    100,
                ),
                ">",
                cpu_threshold,
            ),
            for_seconds=settings.ALERT_CLUSTER_CPU_FOR,
            severity="warning",
            summary=gettext_noop(
                "Cluster {{ $labels.member_cluster }} has {{ $value }}%% of its CPU allocated"
            ),
            description=gettext_noop(
                "CPU requested by pods on {{ $labels.member_cluster }} is above %(threshold)s%% of "
                "what its nodes can allocate; new replicas may not fit."
            ),
            params=(("threshold", f"{cpu_threshold:g}"),),
        ),
        Rule(
            alert="WorksFailingToApply",
            group="karmada-ui.propagation",
            expr=Compare(
                SumBy(
                    Increase("work_sync_workload_duration_seconds_count", WINDOW, {"result": "error"}),
                    ("member_cluster",),
                ),
                ">",
                0,
            ),
            for_seconds=300,
            severity="warning",
            summary=gettext_noop("Works keep failing to apply on {{ $labels.member_cluster }}"),
            description=gettext_noop(
                "{{ $value }} applies of works to member cluster {{ $labels.member_cluster }} failed "
                "in the last 10 minutes."
            ),
        ),
        Rule(
            alert="SchedulingFailures",
            group="karmada-ui.scheduling",
            expr=Compare(
                SumBy(
                    Increase("karmada_scheduler_schedule_attempts_total", WINDOW, {"result": "error"}),
                    ("schedule_type",),
                ),
                ">",
                0,
            ),
            for_seconds=300,
            severity="warning",
            summary=gettext_noop("Bindings fail to schedule ({{ $labels.schedule_type }})"),
            description=gettext_noop(
                "{{ $value }} scheduling attempts ({{ $labels.schedule_type }}) failed "
                "in the last 10 minutes."
            ),
        ),
        Rule(
            alert="RolloutHalted",
            group="karmada-ui.rollouts",
            expr=Compare(
                SumBy(Increase("karmada_ui_rollout_halts_total", WINDOW), ("namespace", "name")),
                ">",
                0,
            ),
            for_seconds=0,
            severity="critical",
            summary=gettext_noop("The staged rollout of {{ $labels.namespace }}/{{ $labels.name }} halted"),
            description=gettext_noop(
                "A cluster of a wave of {{ $labels.namespace }}/{{ $labels.name }} did not get the new "
                "revision ready within the progress deadline; later waves wait until an operator resumes "
                "or aborts the rollout."
            ),
        ),
    ]


TEMPLATE_FIELD = re.compile(r"\{\{\s*(\$labels\.([A-Za-z_][A-Za-z0-9_]*)|\$value)\s*\}\}")


def fill_template(template: str, labels: dict[str, str], value: float) -> str:
    """Fill an annotation's `{{ $labels.x }}` and `{{ $value }}` (rounded to 4 significant digits)."""

    def field(match: re.Match) -> str:
        if match.group(2):
            return labels.get(match.group(2), "")
        return f"{value:.4g}"

    return TEMPLATE_FIELD.sub(field, template)
