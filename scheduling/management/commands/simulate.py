"""``manage.py simulate``: what-if scheduling of Karmada YAML, with no database."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml
from django.core.management.base import BaseCommand

from scheduling.karmada.documents import (
    DocumentError,
    Inputs,
    binding_for,
    is_reserved_namespace,
    load_documents,
    match_policy,
    read_inputs,
)
from scheduling.karmada.priority import PriorityUnresolved, resolve_priority
from scheduling.planner import Plan, describe, plan, plan_waves, split_cost

EXIT_SCHEDULED = 0
EXIT_INVALID = 2
EXIT_UNSCHEDULABLE = 3


class Command(BaseCommand):
    help = (
        "Schedule one workload over Karmada Cluster objects under its (Cluster)PropagationPolicy, "
        "as Karmada would, and print the plan. Exit 0 scheduled, 3 unschedulable, 2 invalid input."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument(
            "-f",
            "--filename",
            action="append",
            required=True,
            dest="files",
            help="YAML with Clusters, policies, one workload and optionally its ResourceBinding (- = stdin)",
        )
        parser.add_argument(
            "--reschedule",
            action="store_true",
            help="fresh mode, as after a WorkloadRebalancer: ignore the previous division",
        )
        parser.add_argument("-o", "--output", choices=("json", "yaml", "table"), default="json")

    def handle(self, *args, **options):
        try:
            inputs = self._read(options["files"])
            policy = match_policy(inputs.policies, inputs.workload)
            if policy is None:
                workload = inputs.workload
                reason = "no PropagationPolicy or ClusterPropagationPolicy matches"
                if is_reserved_namespace(workload.namespace):
                    reason = (
                        f"Karmada never propagates objects in the reserved namespace {workload.namespace}:"
                    )
                raise DocumentError(
                    workload.document.location, "", f"{reason} {workload.kind} {workload.key}"
                )
            priority = resolve_priority(policy.schedule_priority, inputs.priority_classes.get)
        except DocumentError as exc:
            self.stderr.write(f"error: {exc}")
            sys.exit(EXIT_INVALID)
        except PriorityUnresolved as exc:
            self.stderr.write(f"error: {policy.document.location}: spec.schedulePriority: {exc}")
            sys.exit(EXIT_INVALID)
        binding = binding_for(inputs.workload, inputs.previous, options["reschedule"], policy.placement)
        quotas = [q for q in inputs.quotas if q.namespace == inputs.workload.namespace]
        result = plan(inputs.clusters, policy.placement, binding, peers=inputs.peers, quotas=quotas)
        report = build_report(inputs, policy, result, priority)
        self.stdout.write(render(report, options["output"]))
        if result.error is not None:
            sys.exit(EXIT_UNSCHEDULABLE)

    def _read(self, files: list[str]) -> Inputs:
        documents = []
        for name in files:
            if name == "-":
                text, source = sys.stdin.read(), "<stdin>"
            else:
                path = Path(name)
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                    raise DocumentError(name, "", f"cannot be read: {reason}") from None
                source = path.name
            documents.extend(load_documents(source, text))
        return read_inputs(documents)


def proposed_split(result: Plan) -> dict[str, int]:
    """The split the scheduler computed: the result, or the one a quota refused."""
    refused = (result.explanation.get("quota") or {}).get("proposed") if result.error else None
    if refused is not None:
        return {entry["name"]: entry["replicas"] for entry in refused}
    return {} if result.error else result.replicas()


def build_report(inputs: Inputs, policy: Any, result: Plan, priority: int | None = None) -> dict[str, Any]:
    """The simulate output: workload, policy, strategy, clusters by name, error, priority, quota, cost
    and the explanation."""
    workload = inputs.workload
    current = {t.name: t.replicas for t in inputs.previous.clusters} if inputs.previous.clusters else None
    is_workload = result.explanation["workload"]["is_workload"]
    clusters = sorted(
        (target.as_dict() for target in result.clusters if target.replicas > 0 or not is_workload),
        key=lambda entry: entry["name"],
    )
    return {
        "workload": {
            "apiVersion": workload.api_version,
            "kind": workload.kind,
            "name": workload.key,
            "replicas": workload.replicas,
        },
        "policy": {"kind": policy.kind, "name": policy.key},
        "strategy": result.strategy,
        "clusters": clusters,
        "observedAffinity": result.observed_affinity or None,
        "error": None if result.error is None else result.error.as_dict(),
        "schedulePriority": priority,
        "quota": result.explanation.get("quota"),
        "cost": split_cost(inputs.clusters, workload.requirements, proposed_split(result), current),
        "rollout": wave_plan(inputs, policy, result),
        "explain": result.explanation,
    }


def wave_plan(inputs: Inputs, policy: Any, result: Plan) -> dict[str, Any] | None:
    """The staged rollout's waves over the clusters this split places the workload on (None: not staged)."""
    if policy.rollout is None:
        return None
    is_workload = result.explanation["workload"]["is_workload"]
    targets = [t.name for t in result.clusters if t.replicas > 0 or not is_workload]
    waves = plan_waves(policy.rollout, inputs.clusters, targets)
    return {**policy.rollout.as_dict(), "plan": [wave.as_dict() for wave in waves]}


def render(report: dict[str, Any], output: str) -> str:
    """JSON, YAML or a table with the reasons."""
    if output == "json":
        return json.dumps(report, indent=2)
    if output == "yaml":
        return yaml.safe_dump(report, sort_keys=False).rstrip("\n")
    return render_table(report)


def render_table(report: dict[str, Any]) -> str:
    workload = report["workload"]
    explain = report["explain"]
    lines = [
        f"Workload  {workload['kind']} {workload['name']} ({workload['replicas']} replicas)",
        f"Policy    {report['policy']['kind']} {report['policy']['name']}",
        f"Strategy  {report['strategy']} ({explain['mode']} mode, {explain['division_method']})",
        "",
    ]
    placed = {entry["name"]: entry["replicas"] for entry in report["clusters"]}
    header = ("CLUSTER", "REPLICAS", "WEIGHT", "ALLOCATABLE", "OUTCOME", "REASON")
    rows = [header]
    for cluster in explain["clusters"]:
        reasons = "; ".join(reason["message"] for reason in cluster["reasons"])
        rows.append(
            (
                cluster["name"],
                str(placed[cluster["name"]]) if cluster["name"] in placed else "-",
                "-" if cluster.get("weight") is None else str(cluster["weight"]),
                "-" if cluster.get("allocatable") is None else str(cluster["allocatable"]),
                cluster["outcome"],
                reasons,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    for row in rows:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])) + "  " + row[-1])
    sentences = [line for line in describe(explain) if line.startswith(("Replica", "Not scheduled", "The "))]
    if sentences:
        lines.append("")
        lines.extend(sentences)
    if report.get("schedulePriority") is not None:
        lines.insert(
            3, f"Priority  {report['schedulePriority']} (schedulePriority; the queue takes higher first)"
        )
    lines.extend(_cost_lines(report.get("cost")))
    lines.extend(_wave_lines(report.get("rollout")))
    return "\n".join(line.rstrip() for line in lines)


def _cost_lines(cost: dict[str, Any] | None) -> list[str]:
    """The estimated cost of the proposed split per cluster, in total, and its change from the current one."""
    if not cost:
        return []
    lines = ["", "Estimated cost per hour (cluster price labels):"]
    for row in cost["clusters"]:
        if row["hour"] is not None:
            lines.append(
                f"  {row['cluster']}: {row['replicas']} x {row['per_replica_hour']:g} = {row['hour']:g}"
            )
    lines.append(f"  total {cost['hour']:g} per hour, {cost['month']:g} per month")
    if cost.get("difference_hour") is not None:
        lines.append(
            f"  now {cost['current_hour']:g} per hour; change {cost['difference_hour']:+g} per hour "
            f"({cost['difference_month']:+g} per month)"
        )
    if cost["unpriced"]:
        lines.append(f"  not priced: {', '.join(cost['unpriced'])}")
    return lines


def _wave_lines(rollout: dict[str, Any] | None) -> list[str]:
    """The staged rollout's wave plan: which clusters each wave updates, in order."""
    if not rollout:
        return []
    lines = [
        "",
        f"Staged rollout: each wave after the previous one is ready for {rollout['soakSeconds']:g}s "
        f"(halts after {rollout['progressDeadlineSeconds']:g}s not ready):",
    ]
    for wave in rollout["plan"]:
        members = ", ".join(wave["clusters"]) or "(no cluster)"
        lines.append(f"  wave {wave['wave']}  {wave['rule']}: {members}")
    return lines
