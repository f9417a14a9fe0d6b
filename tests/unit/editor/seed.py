"""The seed story's fleet and 7:3 policy as planner inputs, shared by the editor's unit tests."""

from __future__ import annotations

import copy

from kubesyntax.quantities import quantity_amount
from scheduling.planner import ClusterSnapshot, ResourceSummary, Taint


def summary(cpu: str, pods: int = 110) -> ResourceSummary:
    return ResourceSummary(allocatable={"cpu": quantity_amount(cpu), "pods": quantity_amount(str(pods))})


FLEET = (
    ClusterSnapshot("beijing", labels={"env": "prod", "location/region": "cn-north"}, region="cn-north"),
    ClusterSnapshot(
        "guangzhou",
        labels={"env": "staging", "location/region": "cn-south"},
        region="cn-south",
        taints=(Taint("dedicated", "gpu", "NoSchedule"),),
    ),
    ClusterSnapshot("shanghai", labels={"env": "prod", "location/region": "cn-east"}, region="cn-east"),
)

POLICY_7_3 = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "shop-split", "namespace": "default"},
    "spec": {
        "resourceSelectors": [
            {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "shop"}
        ],
        "placement": {
            "clusterAffinity": {"clusterNames": ["beijing", "shanghai"]},
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": ["beijing"]}, "weight": 7},
                        {"targetCluster": {"clusterNames": ["shanghai"]}, "weight": 3},
                    ]
                },
            },
        },
    },
}


def policy_with_weights(*weights: tuple[str, int], **placement_extra) -> dict:
    doc = copy.deepcopy(POLICY_7_3)
    placement = doc["spec"]["placement"]
    placement["clusterAffinity"] = {"clusterNames": [name for name, _ in weights]}
    placement["replicaScheduling"]["weightPreference"]["staticWeightList"] = [
        {"targetCluster": {"clusterNames": [name]}, "weight": weight} for name, weight in weights
    ]
    placement.update(placement_extra)
    return doc
