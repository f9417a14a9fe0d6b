"""The seed story's three clusters as rows, and an operator signed in to the editor."""

from __future__ import annotations

import pytest

from clusters.models import Cluster


def make_cluster(
    name: str, labels: dict, region: str, taints: list | None = None, pods: int = 110
) -> Cluster:
    status = {
        "conditions": [{"type": "Ready", "status": "True"}],
        "resourceSummary": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": str(pods)}},
    }
    return Cluster.objects.create(
        name=name,
        api_endpoint=f"https://{name}.example:6443",
        labels=labels,
        region=region,
        taints=taints or [],
        status=status,
        ready="True",
    )


@pytest.fixture
def fleet(db):
    return [
        make_cluster("beijing", {"env": "prod", "location/region": "cn-north"}, "cn-north"),
        make_cluster(
            "guangzhou",
            {"env": "staging", "location/region": "cn-south"},
            "cn-south",
            taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
        ),
        make_cluster("shanghai", {"env": "prod", "location/region": "cn-east"}, "cn-east"),
    ]


@pytest.fixture
def operator_client(client, operator):
    client.force_login(operator)
    return client
