"""The quota panel: per namespace its FederatedResourceQuotas, used against limit, and by whom."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import yaml

from kubesyntax.resources import format_resource
from scheduling.controllers.export import quota_document
from scheduling.controllers.planner_inputs import stored_usage
from scheduling.karmada.suspension import is_suspended
from scheduling.models import RESOURCE_BINDING, FederatedResourceQuota, ResourceBinding
from scheduling.planner import InputError, add_usage, parse_resources

# Karmada counts a binding's per-replica requests (cpu, memory, ...) only: quota keys in the
# ResourceQuota style name nothing a binding carries, so no usage is ever counted against them.
UNCOUNTED_PREFIXES = ("requests.", "limits.")
UNCOUNTED_NAMES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    }
)


def counted_by_scheduler(resource: str) -> bool:
    """Whether Karmada's enforcement can ever count usage against this quota key."""
    return resource not in UNCOUNTED_NAMES and not resource.startswith(UNCOUNTED_PREFIXES)


@dataclass
class ResourceUse:
    """One limit of a quota: how much of it the namespace's bindings use."""

    resource: str
    limit: str
    used: str
    percent: int
    over: bool
    counted: bool

    @property
    def level(self) -> str:
        return "err" if self.over else "warn" if self.percent >= 80 else ""


@dataclass
class WorkloadUse:
    """One binding's share of the namespace's usage, per limited resource."""

    binding: ResourceBinding
    usage: dict[str, str]
    refused: str = ""

    @property
    def template(self) -> Any:
        return self.binding.template

    @property
    def suspended(self) -> bool:
        return is_suspended(self.binding.suspension)


@dataclass
class QuotaPanel:
    quota: FederatedResourceQuota
    resources: list[ResourceUse] = field(default_factory=list)
    document: dict[str, Any] = field(default_factory=dict)
    problem: str = ""

    @property
    def exceeded(self) -> bool:
        return any(r.over for r in self.resources)

    @property
    def yaml(self) -> str:
        return yaml.safe_dump(self.document, sort_keys=False)


@dataclass
class NamespacePanel:
    """A namespace's quotas and the workloads that use them (or were refused by them)."""

    namespace: str
    quotas: list[QuotaPanel] = field(default_factory=list)
    workloads: list[WorkloadUse] = field(default_factory=list)

    @property
    def refused(self) -> list[WorkloadUse]:
        return [w for w in self.workloads if w.refused]


def _percent(used: Fraction, limit: Fraction) -> int:
    if limit <= 0:
        return 100 if used > 0 else 0
    return int(used * 100 / limit)


def namespace_panel(namespace: str, quotas: list[FederatedResourceQuota]) -> NamespacePanel:
    """The panel of one namespace: usage from its bindings, once for every quota in it."""
    panel = NamespacePanel(namespace)
    bindings = list(
        ResourceBinding.objects.filter(kind=RESOURCE_BINDING, namespace=namespace)
        .select_related("template")
        .order_by("name")
    )
    total: dict[str, Fraction] = {}
    usages = []
    for binding in bindings:
        usage = stored_usage(binding)
        add_usage(total, usage)
        usages.append((binding, usage))
    limited: set[str] = set()
    for quota in quotas:
        entry = QuotaPanel(quota, document=quota_document(quota, total))
        try:
            overall = parse_resources(quota.spec.get("overall"), "spec.overall")
        except InputError as exc:
            entry.problem = f"{exc.path}: {exc.message}"
            panel.quotas.append(entry)
            continue
        limited.update(overall)
        for name in sorted(overall):
            used = total.get(name, Fraction(0))
            entry.resources.append(
                ResourceUse(
                    resource=name,
                    limit=format_resource(name, overall[name]),
                    used=format_resource(name, used),
                    percent=_percent(used, overall[name]),
                    over=used > overall[name],
                    counted=counted_by_scheduler(name),
                )
            )
        panel.quotas.append(entry)
    for binding, usage in usages:
        condition = binding.condition("Scheduled") or {}
        refused = condition.get("message", "") if condition.get("reason") == "QuotaExceeded" else ""
        shown = {name: format_resource(name, usage[name]) for name in sorted(limited) if name in usage}
        if shown or refused:
            panel.workloads.append(WorkloadUse(binding, shown, refused))
    return panel


def quota_panels(namespace: str = "") -> list[NamespacePanel]:
    """Every namespace that has a FederatedResourceQuota (or just the one asked for), by name."""
    rows = FederatedResourceQuota.objects.order_by("namespace", "name")
    if namespace:
        rows = rows.filter(namespace=namespace)
    by_namespace: dict[str, list[FederatedResourceQuota]] = {}
    for quota in rows:
        by_namespace.setdefault(quota.namespace, []).append(quota)
    return [namespace_panel(name, quotas) for name, quotas in by_namespace.items()]
