"""Unknown-field detection for strict field validation."""

from __future__ import annotations

import pytest

from membersim import api
from membersim.cluster import Cluster
from membersim.errors import ApiError
from membersim.fields import unknown_fields
from membersim.resources import DEPLOYMENT, SERVICE, stored
from membersim.spec import ClusterSpec

CONFIG_MAP = stored("", "configmaps")
STRICT = api.Query({"fieldValidation": "Strict"})


def test_typos_are_found_at_every_checked_level_and_real_fields_are_not():
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labes": {}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}, "matchLabel": {}},
            "strategy": {"type": "Recreate"},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "volumes": [],
                    "affinity": {"anything": {"goes": "here"}},
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx",
                            "ports": [{"containerPort": 80, "hostport": 8080}],
                            "env": [{"name": "A", "valeu": "1"}],
                            "resources": {"request": {"cpu": "1"}},
                            "livenessProbe": {"httpGet": {"path": "/"}},
                        }
                    ],
                    "nodeSelecter": {},
                },
            },
        },
        "extra": True,
    }
    assert unknown_fields(DEPLOYMENT, deployment) == [
        "extra",
        "metadata.labes",
        "spec.selector.matchLabel",
        "spec.template.spec.nodeSelecter",
        "spec.template.spec.containers[0].ports[0].hostport",
        "spec.template.spec.containers[0].env[0].valeu",
        "spec.template.spec.containers[0].resources.request",
    ]


def test_service_ports_and_config_map_top_level_are_checked():
    service = {
        "metadata": {"name": "s"},
        "spec": {"selector": {"app": "x"}, "ports": [{"port": 80, "targetport": 8080}]},
    }
    assert unknown_fields(SERVICE, service) == ["spec.ports[0].targetport"]
    assert unknown_fields(CONFIG_MAP, {"metadata": {"name": "c"}, "data": {}, "spec": {}}) == ["spec"]


def test_only_strict_requests_are_refused():
    cluster = Cluster(ClusterSpec(name="strict", nodes=1))
    body = {"metadata": {"name": "c"}, "data": {"a": "b"}, "dat": {}}
    with pytest.raises(ApiError) as refused:
        api.create(cluster, CONFIG_MAP, "default", body, STRICT)
    assert refused.value.code == 400 and 'unknown field "dat"' in refused.value.message
    assert api.create(cluster, CONFIG_MAP, "default", body, api.Query())["metadata"]["name"] == "c"
