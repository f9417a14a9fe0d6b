"""The Deployment every fleet benchmark applies (one replica of nginx, labelled with its name), and the
Duplicated fleet of them in namespace `load` that the in-process engine benchmarks apply as YAML."""

from __future__ import annotations

from typing import Any


def deployment(name: str, namespace: str, cpu_request: str | None = None) -> dict[str, Any]:
    """A one-replica Deployment; `cpu_request` sets its container's CPU request (none by default)."""
    container: dict[str, Any] = {"name": "app", "image": "nginx:1.27"}
    if cpu_request is not None:
        container["resources"] = {"requests": {"cpu": cpu_request}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


DUPLICATED_POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: everywhere, namespace: load}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {bench: "yes"}}}
    replicaScheduling: {replicaSchedulingType: Duplicated}
"""
DEPLOYMENT_YAML = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: w-{i:04d}, namespace: load, labels: {{app: w-{i:04d}}}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: w-{i:04d}}}}}
  template:
    metadata: {{labels: {{app: w-{i:04d}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""


def duplicated_fleet_yaml(count: int) -> str:
    """DUPLICATED_POLICY and `count` Deployments w-0000… in namespace `load`, as one YAML stream."""
    return "---\n".join([DUPLICATED_POLICY, *(DEPLOYMENT_YAML.format(i=i) for i in range(count))])
