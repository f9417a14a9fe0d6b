"""Deployments as tests write them to members: a name, replicas and the requests of its one container."""

from __future__ import annotations

from typing import Any


def requesting(name: str, replicas: int, cpu: str, memory: str) -> dict[str, Any]:
    """A Deployment in `default` whose pods each request `cpu` and `memory`."""
    container = {"name": "app", "image": "nginx", "resources": {"requests": {"cpu": cpu, "memory": memory}}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }
