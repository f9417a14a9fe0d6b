"""Resource templates as tests store them in bulk: bare Deployments in `default` under one policy."""

from __future__ import annotations

from collections.abc import Iterable

from scheduling.models import PropagationPolicy, ResourceTemplate


def deployment_templates(policy: PropagationPolicy, names: Iterable[str]) -> list[ResourceTemplate]:
    """One stored Deployment template a name, in one INSERT (their pks set, as PostgreSQL returns them)."""
    return ResourceTemplate.objects.bulk_create(
        ResourceTemplate(
            api_version="apps/v1",
            api_group="apps",
            kind="Deployment",
            namespace="default",
            name=name,
            manifest={"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}},
            policy=policy,
        )
        for name in names
    )
