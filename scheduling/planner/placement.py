"""The Placement of a (Cluster)PropagationPolicy, parsed from its dict with Karmada's webhook defaults."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubesyntax.fieldpaths import join
from kubesyntax.taints import Toleration

from .errors import InputError
from .parsing import get_int, get_list, get_map, get_str, get_str_map, require_map
from .selectors import ClusterAffinity, NodeSelectorTerm
from .taints import parse_tolerations
from .workload_affinity import WorkloadAffinity

DUPLICATED = "Duplicated"
DIVIDED = "Divided"
WEIGHTED = "Weighted"
AGGREGATED = "Aggregated"

STRATEGY_DUPLICATED = "Duplicated"
STRATEGY_AGGREGATED = "Aggregated"
STRATEGY_STATIC_WEIGHT = "StaticWeight"
STRATEGY_DYNAMIC_WEIGHT = "DynamicWeight"

WEBSTER = "webster"
LARGEST_REMAINDER = "largest-remainder"
DIVISION_METHODS = (WEBSTER, LARGEST_REMAINDER)
DIVISION_ANNOTATION = "scheduling.karmada-ui.io/division-method"

SPREAD_FIELDS = ("cluster", "region", "zone", "provider")


@dataclass(frozen=True)
class OverflowAffinity:
    """An overflow group of a cluster affinity term (Karmada v1.18+)."""

    name: str
    affinity: ClusterAffinity


@dataclass(frozen=True)
class AffinityTerm:
    """One entry of ``placement.clusterAffinities``."""

    name: str
    affinity: ClusterAffinity
    overflow: tuple[OverflowAffinity, ...] | None = None


@dataclass(frozen=True)
class SpreadConstraint:
    """A spread constraint after webhook defaulting (field ``cluster`` and minGroups 1 when unset)."""

    spread_by_field: str = ""
    spread_by_label: str = ""
    min_groups: int = 1
    max_groups: int = 0


@dataclass(frozen=True)
class StaticWeight:
    """A static weight rule: clusters matching ``target`` get ``weight``."""

    target: ClusterAffinity
    weight: int


@dataclass(frozen=True)
class ReplicaScheduling:
    """``placement.replicaScheduling`` after CRD and webhook defaults.

    ``static_weights`` is None when there is no weightPreference at all.
    """

    type: str = DIVIDED
    division_preference: str = WEIGHTED
    static_weights: tuple[StaticWeight, ...] | None = None
    dynamic_weight: str = ""


@dataclass(frozen=True)
class NodeClaim:
    """Node constraints on a replica: nodeSelector, tolerations and required node affinity terms."""

    node_selector: tuple[tuple[str, str], ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    hard_node_affinity: tuple[NodeSelectorTerm, ...] | None = None

    def merged(self, other: NodeClaim | None) -> NodeClaim:
        """Both claims at once: selectors and tolerations combined, affinity kept."""
        if other is None:
            return self
        affinity = (
            self.hard_node_affinity if self.hard_node_affinity is not None else other.hard_node_affinity
        )
        return NodeClaim(
            node_selector=self.node_selector + other.node_selector,
            tolerations=self.tolerations + other.tolerations,
            hard_node_affinity=affinity,
        )

    @classmethod
    def from_dict(cls, data: Any, path: str) -> NodeClaim | None:
        data = get_map(data, path)
        if data is None:
            return None
        terms = None
        affinity = get_map(data.get("hardNodeAffinity"), join(path, "hardNodeAffinity"))
        if affinity is not None:
            terms_path = join(join(path, "hardNodeAffinity"), "nodeSelectorTerms")
            items = get_list(affinity.get("nodeSelectorTerms"), terms_path) or []
            terms = tuple(
                NodeSelectorTerm.from_dict(item, join(terms_path, i)) for i, item in enumerate(items)
            )
        selector = get_str_map(data.get("nodeSelector"), join(path, "nodeSelector"))
        return cls(
            node_selector=tuple(sorted(selector.items())),
            tolerations=parse_tolerations(data.get("tolerations"), join(path, "tolerations")),
            hard_node_affinity=terms,
        )


@dataclass(frozen=True)
class Placement:
    """Where a workload may go and how its replicas divide.

    Build it with ``Placement.from_dict(policy["spec"]["placement"])``; defaults are Karmada's.
    ``division_method`` comes from the policy annotation ``scheduling.karmada-ui.io/division-method``.
    """

    cluster_affinity: ClusterAffinity | None = None
    cluster_affinities: tuple[AffinityTerm, ...] | None = None
    cluster_tolerations: tuple[Toleration, ...] = ()
    spread_constraints: tuple[SpreadConstraint, ...] = ()
    replica_scheduling: ReplicaScheduling | None = None
    node_claim: NodeClaim | None = None
    division_method: str = WEBSTER
    workload_affinity: WorkloadAffinity | None = None

    @property
    def scheduling_type(self) -> str:
        """Karmada ``ReplicaSchedulingType()``: Duplicated when replicaScheduling is absent."""
        if self.replica_scheduling is None:
            return DUPLICATED
        return self.replica_scheduling.type

    @property
    def strategy(self) -> str:
        """One of Duplicated, Aggregated, StaticWeight, DynamicWeight, or "" when unsupported."""
        rs = self.replica_scheduling
        if rs is None or rs.type == DUPLICATED:
            return STRATEGY_DUPLICATED
        if rs.type != DIVIDED:
            return ""
        if rs.division_preference == AGGREGATED:
            return STRATEGY_AGGREGATED
        if rs.division_preference == WEIGHTED:
            return STRATEGY_DYNAMIC_WEIGHT if rs.dynamic_weight else STRATEGY_STATIC_WEIGHT
        return ""

    def term(self, name: str) -> AffinityTerm | None:
        """The clusterAffinities term with this name."""
        for term in self.cluster_affinities or ():
            if term.name == name:
                return term
        return None

    @classmethod
    def from_dict(
        cls, data: Any, division_method: str = WEBSTER, path: str = "", *, defaults: bool = True
    ) -> Placement:
        """Parse a Karmada placement dict, applying CRD and webhook defaults (spec §1.1-1.2).

        ``defaults=False`` keeps the dict as written, as Karmada's unit-level functions see it.
        """
        data = get_map(data, path) or {}
        if division_method not in DIVISION_METHODS:
            raise InputError(DIVISION_ANNOTATION, f"must be one of {', '.join(DIVISION_METHODS)}")
        affinity = None
        if data.get("clusterAffinity") is not None:
            affinity = ClusterAffinity.from_dict(data["clusterAffinity"], join(path, "clusterAffinity"))
        resource = get_map(data.get("resource"), join(path, "resource")) or {}
        return cls(
            cluster_affinity=affinity,
            cluster_affinities=_parse_terms(data.get("clusterAffinities"), join(path, "clusterAffinities")),
            cluster_tolerations=parse_tolerations(
                data.get("clusterTolerations"), join(path, "clusterTolerations")
            ),
            spread_constraints=_parse_spread(
                data.get("spreadConstraints"), join(path, "spreadConstraints"), defaults
            ),
            replica_scheduling=_parse_replica_scheduling(
                data.get("replicaScheduling"), join(path, "replicaScheduling"), defaults
            ),
            node_claim=NodeClaim.from_dict(
                resource.get("nodeClaim"), join(join(path, "resource"), "nodeClaim")
            ),
            division_method=division_method,
            workload_affinity=WorkloadAffinity.from_dict(
                data.get("workloadAffinity"), join(path, "workloadAffinity")
            ),
        )


def _parse_terms(data: Any, path: str) -> tuple[AffinityTerm, ...] | None:
    items = get_list(data, path)
    if items is None:
        return None
    terms = []
    for i, item in enumerate(items):
        item_path = join(path, i)
        item = require_map(item, item_path)
        overflow = None
        overflow_items = get_list(item.get("overflowAffinities"), join(item_path, "overflowAffinities"))
        if overflow_items is not None:
            overflow_path = join(item_path, "overflowAffinities")
            overflow = tuple(
                OverflowAffinity(
                    name=get_str(
                        (get_map(o, join(overflow_path, j)) or {}).get("affinityName"), join(overflow_path, j)
                    ),
                    affinity=ClusterAffinity.from_dict(o, join(overflow_path, j)),
                )
                for j, o in enumerate(overflow_items)
            )
        terms.append(
            AffinityTerm(
                name=get_str(item.get("affinityName"), join(item_path, "affinityName")),
                affinity=ClusterAffinity.from_dict(item, item_path),
                overflow=overflow,
            )
        )
    return tuple(terms)


def _parse_spread(data: Any, path: str, defaults: bool) -> tuple[SpreadConstraint, ...]:
    constraints = []
    for i, item in enumerate(get_list(data, path) or []):
        item_path = join(path, i)
        item = require_map(item, item_path)
        by_field = get_str(item.get("spreadByField"), join(item_path, "spreadByField"))
        by_label = get_str(item.get("spreadByLabel"), join(item_path, "spreadByLabel"))
        if by_field and by_field not in SPREAD_FIELDS:
            raise InputError(join(item_path, "spreadByField"), f"must be one of {', '.join(SPREAD_FIELDS)}")
        if defaults and not by_field and not by_label:
            by_field = "cluster"
        min_groups = get_int(item.get("minGroups"), join(item_path, "minGroups"))
        constraints.append(
            SpreadConstraint(
                spread_by_field=by_field,
                spread_by_label=by_label,
                min_groups=1 if defaults and min_groups == 0 else min_groups,
                max_groups=get_int(item.get("maxGroups"), join(item_path, "maxGroups")),
            )
        )
    return tuple(constraints)


def _parse_replica_scheduling(data: Any, path: str, defaults: bool) -> ReplicaScheduling | None:
    data = get_map(data, path)
    if data is None:
        return None
    rs_type = get_str(data.get("replicaSchedulingType"), join(path, "replicaSchedulingType"))
    if defaults and not rs_type:
        rs_type = DIVIDED
    # The CRD enums reject other values; without defaults (Karmada's unit-level view) they reach
    # the scheduler, which answers "unsupported replica scheduling strategy".
    if defaults and rs_type not in (DUPLICATED, DIVIDED, ""):
        raise InputError(join(path, "replicaSchedulingType"), "must be Duplicated or Divided")
    preference = get_str(data.get("replicaDivisionPreference"), join(path, "replicaDivisionPreference"))
    if defaults and preference and preference not in (WEIGHTED, AGGREGATED):
        raise InputError(join(path, "replicaDivisionPreference"), "must be Weighted or Aggregated")
    if defaults and rs_type == DIVIDED and not preference:
        preference = WEIGHTED
    wp_path = join(path, "weightPreference")
    wp = get_map(data.get("weightPreference"), wp_path)
    static = None
    dynamic = ""
    if wp is not None:
        list_path = join(wp_path, "staticWeightList")
        rules = []
        for i, rule in enumerate(get_list(wp.get("staticWeightList"), list_path) or []):
            rule_path = join(list_path, i)
            rule = require_map(rule, rule_path)
            weight = get_int(rule.get("weight"), join(rule_path, "weight"))
            if weight < 1:
                raise InputError(join(rule_path, "weight"), "must be >= 1")
            target = ClusterAffinity.from_dict(rule.get("targetCluster"), join(rule_path, "targetCluster"))
            rules.append(StaticWeight(target=target, weight=weight))
        static = tuple(rules)
        dynamic = get_str(wp.get("dynamicWeight"), join(wp_path, "dynamicWeight"))
        if dynamic and dynamic != "AvailableReplicas":
            raise InputError(join(wp_path, "dynamicWeight"), "must be AvailableReplicas")
    return ReplicaScheduling(
        type=rs_type,
        division_preference=preference,
        static_weights=static,
        dynamic_weight=dynamic,
    )


def division_method_from_annotations(annotations: dict[str, str] | None) -> str:
    """The division method a policy asks for through its annotation (default webster)."""
    value = (annotations or {}).get(DIVISION_ANNOTATION, WEBSTER)
    if value not in DIVISION_METHODS:
        raise InputError(
            f"metadata.annotations[{DIVISION_ANNOTATION}]", f"must be one of {', '.join(DIVISION_METHODS)}"
        )
    return value
