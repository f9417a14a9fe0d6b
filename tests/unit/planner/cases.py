"""Turn a public spec case (karmada-cases-public.json) into planner inputs and run it at its level."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from kubesyntax.quantities import quantity_amount
from scheduling.karmada.priority import in_queue_order
from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    Placement,
    QuotaSnapshot,
    ReplicaRequirements,
    ResourceSummary,
    WorkloadPeer,
    add_usage,
    affinity_groups,
    binding_usage,
    parse_resources,
    plan,
    validate_placement,
)
from scheduling.planner.assign import assign_raw, assign_replicas, divide_dynamic
from scheduling.planner.dispenser import divide, webster_seats
from scheduling.planner.errors import ScheduleFailure
from scheduling.planner.estimator import estimate_general
from scheduling.planner.filters import (
    filter_affinity,
    filter_api_enablement,
    filter_eviction,
    filter_spread_fields,
    filter_taints,
)
from scheduling.planner.messages import Reason, karmada_filter_message
from scheduling.planner.model import TargetCluster
from scheduling.planner.pipeline import score_locality
from scheduling.planner.quota import check_quota
from scheduling.planner.resource_models import ResourceModel
from scheduling.planner.selectors import ClusterAffinity
from scheduling.planner.spread import (
    Candidate,
    Group,
    Region,
    candidate_key,
    group_score,
    select_by_region,
    select_clusters,
    select_groups,
)
from scheduling.planner.taints import parse_taints
from scheduling.planner.workload_affinity import filter_workload_affinity, filter_workload_anti_affinity

CASES_FILE = Path(__file__).parent / "data" / "karmada-cases-public.json"
EXTRA_CASES_FILE = Path(__file__).parent / "data" / "karmada-cases-extra.json"
NEWER_CASES_FILE = Path(__file__).parent / "data" / "karmada-cases-newer.json"
NO_GROUP = "no feasible group combination"


def load_cases(path: Path = CASES_FILE) -> list[dict[str, Any]]:
    return json.loads(path.read_text())


def snapshot(data: dict[str, Any]) -> ClusterSnapshot:
    """A cluster from a case; ``allocatable`` becomes a pod-count resource summary."""
    summary = None
    if data.get("resourceSummary") is not None:
        summary = _summary(data["resourceSummary"])
    elif "allocatable" in data:
        summary = ResourceSummary(allocatable={"pods": Fraction(data["allocatable"])})
    return ClusterSnapshot(
        resource_models=tuple(
            ResourceModel(model["grade"], _resources({r["name"]: r["min"] for r in model["ranges"]}))
            for model in data.get("resourceModels") or ()
        ),
        name=data["name"],
        labels=dict(data.get("labels") or {}),
        provider=data.get("provider", ""),
        region=data.get("region", ""),
        zones=tuple(data.get("zones") or ()),
        taints=parse_taints(data.get("taints"), "taints"),
        deleting=bool(data.get("deleting")),
        resource_summary=summary,
        api_enablements=_enablements(data.get("apiEnablements")),
        api_enablements_complete=bool(data.get("apiEnablementsComplete")),
    )


def _enablements(raw: list[dict[str, Any]] | None) -> frozenset[tuple[str, str]] | None:
    """``status.apiEnablements`` as (groupVersion, kind) pairs; None when the case leaves it out."""
    if raw is None:
        return None
    return frozenset(
        (entry["groupVersion"], r["kind"]) for entry in raw for r in entry.get("resources") or ()
    )


def previous(case: dict[str, Any]) -> tuple[TargetCluster, ...]:
    return tuple(TargetCluster(name, count) for name, count in (case.get("previous") or {}).items())


def binding(case: dict[str, Any]) -> Binding:
    requests = case["policy"].get("replicaRequirements")
    return Binding(
        replicas=case.get("replicas", 0),
        requirements=None if requests is None else ReplicaRequirements(resource_request=_resources(requests)),
        previous=previous(case),
        uid=case.get("uid", ""),
        observed_affinity=case.get("observedAffinity", ""),
        fresh=bool(case.get("reschedule")),
        eviction_tasks=tuple(
            EvictionTask(task["fromCluster"]) for task in case.get("gracefulEvictionTasks") or ()
        ),
        namespace=case.get("namespace", ""),
        name=case.get("name", ""),
        affinity_group=case.get("affinityGroup", ""),
        anti_affinity_group=case.get("antiAffinityGroup", ""),
    )


def peers(case: dict[str, Any]) -> list[WorkloadPeer]:
    """The case's other ResourceBindings (binding names, groups, target clusters)."""
    return [
        WorkloadPeer(
            namespace=p["namespace"],
            name=p["name"],
            affinity_group=p.get("affinityGroup", ""),
            anti_affinity_group=p.get("antiAffinityGroup", ""),
            clusters=tuple(p.get("clusters") or ()),
        )
        for p in case.get("peers") or ()
    ]


def _usage(entry: dict[str, Any] | None) -> dict[str, Fraction]:
    """A binding's usage from a case's {requests, clusters}."""
    if entry is None or not entry.get("requests"):
        return {}
    requirements = ReplicaRequirements(resource_request=parse_resources(entry["requests"], "requests"))
    return binding_usage(requirements, [TargetCluster(n, r) for n, r in entry["clusters"].items()])


def _same_quantities(actual: dict[str, Fraction], expected: dict[str, str]) -> bool:
    return set(actual) == set(expected) and all(
        actual[name] == quantity_amount(value) for name, value in expected.items()
    )


def candidates(case: dict[str, Any], clusters: list[dict[str, Any]] | None = None) -> list[Candidate]:
    """Candidates in the order the case lists them."""
    held = case.get("previous") or {}
    result = []
    for data in clusters if clusters is not None else case["clusters"]:
        allocatable = data.get("allocatable", 0)
        result.append(
            Candidate(
                name=data["name"],
                score=data.get("score", 0),
                allocatable=allocatable,
                available=data.get("available", allocatable + held.get(data["name"], 0)),
                overflow_order=data.get("overflowOrder", 0),
                cluster=snapshot(data),
            )
        )
    return result


def _placement(case: dict[str, Any]) -> Placement:
    """The case policy as a placement; webhook defaults only apply to the full Schedule level."""
    ignored = ("minGroups", "maxGroups", "target", "replicaRequirements")
    policy = {k: v for k, v in case["policy"].items() if k not in ignored}
    return Placement.from_dict(policy, defaults=case["level"] == "Schedule")


def _as_dict(targets: list[TargetCluster]) -> dict[str, int]:
    return {target.name: target.replicas for target in targets}


def _resources(values: dict[str, Any] | None) -> dict[str, Fraction]:
    """Case resources: cpu in millicores, memory in bytes, pods as a count."""
    result = {}
    for name, value in (values or {}).items():
        result[name] = Fraction(value, 1000) if name == "cpu" else Fraction(value)
    return result


def _summary(raw: dict[str, Any]) -> ResourceSummary:
    return ResourceSummary(
        allocatable=_resources(raw.get("allocatable")),
        allocated=_resources(raw.get("allocated")),
        allocating=_resources(raw.get("allocating")),
        allocatable_modelings=tuple((m["grade"], m["count"]) for m in raw.get("allocatableModelings") or ()),
    )


def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """Run a case at its level; returns a dict shaped like the case's ``expect``."""
    try:
        return _run(case)
    except ScheduleFailure as failure:
        return {"error": failure.message}


def _run(case: dict[str, Any]) -> dict[str, Any]:
    level = case["level"]
    if level == "Schedule":
        placement = _placement(case)
        result = plan([snapshot(c) for c in case["clusters"]], placement, binding(case), peers=peers(case))
        if result.error is not None:
            return {"error": result.error.message}
        return result.replicas()
    if level == "AssignReplicas":
        placement = _placement(case)
        bind = binding(case)
        return _as_dict(assign_replicas(candidates(case), bind, placement, bind.observed_affinity))
    if level in (
        "assignByStaticWeightStrategy",
        "assignByDynamicStrategy",
        "dynamicScaleUp",
        "dynamicScaleDown",
        "dynamicFreshScale",
        "assignByDuplicatedStrategy",
    ):
        return _as_dict(assign_raw(candidates(case), binding(case), _placement(case)))
    if level == "dynamicDivideReplicas":
        weights = [(c["name"], c.get("allocatable", 0)) for c in case["clusters"]]
        return _as_dict(divide_dynamic(case["replicas"], weights, [], binding(case), _placement(case)))
    if level in ("Dispenser.AllocateByWeight", "SpreadReplicasByTargetClusters"):
        weights = [(c["name"], c.get("weight", 0)) for c in case["clusters"]]
        return divide(case["replicas"], weights, case.get("uid", ""), case.get("previous") or {})
    if level == "AllocateWebsterSeats":
        votes = {c["name"]: c.get("weight", 0) for c in case["clusters"]}
        return webster_seats(case["replicas"], votes, case.get("previous") or {}, case.get("uid", ""))
    if level == "SelectBestClusters":
        chosen = select_clusters(_placement(case), candidates(case), case.get("replicas", 0))
        return {"selected": [c.name for c in chosen]}
    if level == "SelectClusters":
        ordered = sorted(candidates(case), key=candidate_key)
        if case.get("replicas", 0) == 0:
            for candidate in ordered:
                candidate.available = candidate.allocatable = 2**31 - 1
        chosen = select_clusters(_placement(case), ordered, case.get("replicas", 0))
        return {"selected": [c.name for c in chosen]}
    if level == "selectBestClustersByRegion":
        placement = _placement(case)
        constraints = {c.spread_by_field: c for c in placement.spread_constraints}
        regions = [
            Region(name, info["score"], candidates(case, info["clusters"]))
            for name, info in case["regions"].items()
        ]
        chosen = select_by_region(regions, constraints["region"], constraints.get("cluster"))
        return {"selected": [c.name for c in chosen]}
    if level == "selectGroups":
        policy = case["policy"]
        groups = [Group(g["name"], g["value"], g["weight"]) for g in case["groups"]]
        chosen = select_groups(groups, policy["minGroups"], policy["maxGroups"], policy["target"])
        if not chosen:
            return {"error": NO_GROUP}
        return {"selected": [g.name for g in chosen]}
    if level == "calcGroupScore":
        placement = _placement(case)
        min_groups = case["policy"].get("minGroups", 0)
        scores = {
            group["name"]: group_score(
                candidates(case, group["clusters"]), case["replicas"], placement, min_groups
            )
            for group in case["groups"]
        }
        if "group2" not in scores:
            return {"score": scores["group1"]}
        return {"group1Wins": scores["group1"] >= scores["group2"], "scores": scores}
    if level == "ClusterMatches":
        affinity = ClusterAffinity.from_dict(case["policy"].get("clusterAffinity"), "clusterAffinity")
        return {"matches": affinity.matches(snapshot(case["clusters"][0]))}
    if level == "ClusterAffinity.Filter":
        bind = binding(case)
        reason = filter_affinity(
            snapshot(case["clusters"][0]), _placement(case), bind, bind.observed_affinity
        )
        return _verdict(reason)
    if level == "TaintToleration.Filter":
        bind = binding(case)
        names = frozenset(t.name for t in bind.previous)
        return _verdict(filter_taints(snapshot(case["clusters"][0]), _placement(case), names))
    if level == "APIEnablement.Filter":
        resource = case.get("resource") or {}
        bind = replace(
            binding(case), api_version=resource.get("apiVersion", ""), kind=resource.get("kind", "")
        )
        names = frozenset(t.name for t in bind.previous)
        return _verdict(filter_api_enablement(snapshot(case["clusters"][0]), bind, names))
    if level == "ClusterEviction.Filter":
        return _verdict(filter_eviction(snapshot(case["clusters"][0]), binding(case)))
    if level == "SpreadConstraint.Filter":
        return _verdict(filter_spread_fields(snapshot(case["clusters"][0]), _placement(case)))
    if level == "ValidatePlacement":
        problems = validate_placement(case["policy"])
        return {"valid": not problems, "problems": problems}
    if level == "ClusterLocality.Score":
        return {"score": score_locality(case["clusters"][0]["name"], {t.name for t in previous(case)})}
    if level == "GeneralEstimator.maxAvailableReplicas":
        requests = case["policy"].get("replicaRequirements")
        requirements = (
            None if requests is None else ReplicaRequirements(resource_request=_resources(requests))
        )
        result = {}
        for data in case["clusters"]:
            raw = data.get("resourceSummary")
            models = snapshot(data).resource_models
            result[data["name"]] = estimate_general(
                None if raw is None else _summary(raw), requirements, models
            )
        return result
    if level in ("WorkloadAffinity.Filter", "WorkloadAntiAffinity.Filter"):
        bind = binding(case)
        names = frozenset(t.name for t in bind.previous)
        check = (
            filter_workload_affinity if level == "WorkloadAffinity.Filter" else filter_workload_anti_affinity
        )
        group = bind.affinity_group if level == "WorkloadAffinity.Filter" else bind.anti_affinity_group
        own = f"{bind.name}-deployment"
        return _verdict(check(case["clusters"][0]["name"], bind.namespace, own, group, names, peers(case)))
    if level == "getWorkloadAffinityGroups":
        affinity = Placement.from_dict(case["policy"]).workload_affinity
        affinity_group, anti_group = affinity_groups(affinity, case["resource"].get("labels") or {})
        if not affinity_group and not anti_group:
            return {"groups": None}
        return {"groups": {"affinityGroup": affinity_group, "antiAffinityGroup": anti_group}}
    if level == "FederatedResourceQuota.Validate":
        quotas = [
            QuotaSnapshot(
                namespace=q["namespace"],
                name=q["name"],
                overall=parse_resources(q["overall"], "overall"),
                used=parse_resources(q.get("used"), "used"),
            )
            for q in case["quotas"]
        ]
        check_quota(quotas, case["namespace"], _usage(case.get("old")), _usage(case["new"]))
        return {"allowed": True}
    if level == "calculateUsedWithResourceBinding":
        total: dict[str, Fraction] = {}
        for entry in case["bindings"]:
            add_usage(total, _usage(entry))
        overall = parse_resources(case["overall"], "overall")
        used = {name: amount for name, amount in total.items() if name in overall}
        expected = case["expect"]["used"]
        return {
            "used": expected if _same_quantities(used, expected) else {k: str(v) for k, v in used.items()}
        }
    if level == "SchedulingQueue.Pop":
        queue = list(enumerate(case["queue"]))
        ordered = in_queue_order(queue, lambda item: item[1].get("priority", 0), lambda item: item[0])
        return {"first": ordered[0][1]["key"]}
    raise AssertionError(f"unknown case level {level}")


def _verdict(reason: Reason | None) -> dict[str, Any]:
    """A filter outcome; Karmada's own message for a failure travels along for ``karmadaReason``."""
    if reason is None:
        return {"matches": True}
    return {"matches": False, "karmadaReason": karmada_filter_message(reason)}


def matches_expectation(case: dict[str, Any], actual: dict[str, Any]) -> bool:
    """Errors match by message prefix; group scores also by the derived values when given.

    ``expectAnyOf`` lists every answer Karmada's own test accepts; the result must be one of them too.
    ``karmadaReason`` is text Karmada's filter message must contain.
    """
    expect = case["expect"]
    actual = dict(actual)
    reason = actual.pop("karmadaReason", "")
    if "karmadaReason" in case and case["karmadaReason"] not in reason:
        return False
    if "valid" in expect:
        problems = actual.get("problems", [])
        fields = expect.get("fields", [])
        found = all(any(path.startswith(f) for path, _ in problems) for f in fields)
        return actual.get("valid") == expect["valid"] and found
    accepted = case.get("expectAnyOf")
    if accepted is not None and actual not in accepted:
        return False
    if "error" in expect:
        return "error" in actual and actual["error"].startswith(expect["error"])
    if "group1Wins" in expect:
        derived = case.get("derivedScores")
        if derived and actual.get("scores") != derived:
            return False
        return actual.get("group1Wins") == expect["group1Wins"]
    return actual == expect
