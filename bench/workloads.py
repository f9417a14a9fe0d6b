"""The Deployment every fleet benchmark applies: one replica of nginx, labelled with its name."""

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
