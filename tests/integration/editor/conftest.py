"""The seed story's three clusters as rows, and an operator signed in to the editor."""

from __future__ import annotations

import pytest

from tests.support.clusters import make_cluster, schedulable_status


@pytest.fixture
def fleet(db):
    return [
        make_cluster(
            "beijing",
            labels={"env": "prod", "location/region": "cn-north"},
            region="cn-north",
            status=schedulable_status(),
        ),
        make_cluster(
            "guangzhou",
            labels={"env": "staging", "location/region": "cn-south"},
            region="cn-south",
            taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}],
            status=schedulable_status(),
        ),
        make_cluster(
            "shanghai",
            labels={"env": "prod", "location/region": "cn-east"},
            region="cn-east",
            status=schedulable_status(),
        ),
    ]


@pytest.fixture
def operator_client(client, operator):
    client.force_login(operator)
    return client
