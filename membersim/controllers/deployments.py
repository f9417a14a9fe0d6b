"""The deployment controller: one ReplicaSet per pod template, the newest scaled to the desired
replicas, the older ones to zero and pruned past revisionHistoryLimit."""

from __future__ import annotations

from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.resources import DEPLOYMENT, POD, REPLICASET

COMPONENT = "deployment-controller"
REVISION = "deployment.kubernetes.io/revision"


def revision_of(replica_set: dict[str, Any]) -> int:
    return int((replica_set["metadata"].get("annotations") or {}).get(REVISION, "0") or 0)


def newest_replica_set(deployment: dict[str, Any], owned: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The owned ReplicaSet whose pod-template-hash is the deployment's current template's."""
    template_hash = meta.template_hash(deployment["spec"].get("template"))
    return next(
        (
            rs
            for rs in owned
            if (rs["metadata"].get("labels") or {}).get("pod-template-hash") == template_hash
        ),
        None,
    )


class DeploymentController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        changed = False
        for deployment in self.context.visit(DEPLOYMENT):
            changed |= self.sync(deployment)
        return changed

    def sync(self, deployment: dict[str, Any]) -> bool:
        spec = deployment["spec"]
        if spec.get("paused"):
            return False
        owned = self.context.owned(REPLICASET, deployment)
        revisions = {rs["metadata"]["name"]: revision_of(rs) for rs in owned}
        newest = newest_replica_set(deployment, owned)
        top = max(revisions.values(), default=0)
        if newest is None:
            self._create_replica_set(deployment, top + 1)
            revision, changed = top + 1, True
        else:
            revision = revisions[newest["metadata"]["name"]]
            if revision < top:
                revision = top + 1
            changed = self._scale_newest(deployment, newest, revision)
        old_sets = [
            rs for rs in owned if newest is None or rs["metadata"]["name"] != newest["metadata"]["name"]
        ]
        changed |= self._scale_down_old(deployment, old_sets)
        changed |= self._prune_history(deployment, old_sets, revisions)
        changed |= self._note_revision(deployment, revision)
        return changed

    def _create_replica_set(self, deployment: dict[str, Any], revision: int) -> None:
        spec = deployment["spec"]
        name, namespace = deployment["metadata"]["name"], deployment["metadata"]["namespace"]
        desired = spec.get("replicas", 1)
        template_hash = meta.template_hash(spec.get("template"))
        # Stored objects are never changed in place, so the ReplicaSet shares the template's pod spec.
        source = spec.get("template") or {}
        source_meta = source.get("metadata") or {}
        labels = {**(source_meta.get("labels") or {}), "pod-template-hash": template_hash}
        template = {**source, "metadata": {**source_meta, "labels": labels}}
        selector = dict(spec.get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), "pod-template-hash": template_hash}
        rs_name = f"{name}-{template_hash}"
        replica_set = {
            "metadata": {
                "name": rs_name,
                "namespace": namespace,
                "labels": dict(template["metadata"]["labels"]),
                "annotations": {
                    "deployment.kubernetes.io/desired-replicas": str(desired),
                    "deployment.kubernetes.io/max-replicas": str(desired + 1),
                    REVISION: str(revision),
                },
                "ownerReferences": [meta.owner_reference(deployment)],
            },
            "spec": {
                "replicas": desired,
                "minReadySeconds": spec.get("minReadySeconds", 0),
                "selector": selector,
                "template": template,
            },
            "status": {"replicas": 0},
        }
        meta.stamp_new(REPLICASET, replica_set)
        self.context.store.put(REPLICASET, meta.shared(replica_set))
        self.context.record(
            deployment,
            "Normal",
            "ScalingReplicaSet",
            f"Scaled up replica set {rs_name} from 0 to {desired}",
            COMPONENT,
        )

    def _scale_newest(self, deployment: dict[str, Any], newest: dict[str, Any], revision: int) -> bool:
        desired = deployment["spec"].get("replicas", 1)
        annotations = dict(newest["metadata"].get("annotations") or {})
        if (
            newest["spec"].get("replicas") == desired
            and annotations.get(REVISION) == str(revision)
            and annotations.get("deployment.kubernetes.io/desired-replicas") == str(desired)
        ):
            return False
        old_count = newest["spec"].get("replicas", 0)
        annotations.update(
            {
                REVISION: str(revision),
                "deployment.kubernetes.io/desired-replicas": str(desired),
                "deployment.kubernetes.io/max-replicas": str(desired + 1),
            }
        )
        updated = {
            **newest,
            "metadata": {**newest["metadata"], "annotations": annotations},
            "spec": {**newest["spec"], "replicas": desired},
        }
        updated["metadata"]["generation"] = newest["metadata"].get("generation", 1) + (
            1 if old_count != desired else 0
        )
        self.context.store.put(REPLICASET, updated)
        if old_count != desired:
            direction = "up" if desired > old_count else "down"
            self.context.record(
                deployment,
                "Normal",
                "ScalingReplicaSet",
                f"Scaled {direction} replica set {newest['metadata']['name']} from {old_count} to {desired}",
                COMPONENT,
            )
        return True

    def _scale_down_old(self, deployment: dict[str, Any], old_sets: list[dict[str, Any]]) -> bool:
        changed = False
        for rs in old_sets:
            count = rs["spec"].get("replicas", 0)
            if count:
                self.context.store.put(
                    REPLICASET,
                    {
                        **rs,
                        "metadata": {**rs["metadata"], "generation": rs["metadata"].get("generation", 1) + 1},
                        "spec": {**rs["spec"], "replicas": 0},
                    },
                )
                self.context.record(
                    deployment,
                    "Normal",
                    "ScalingReplicaSet",
                    f"Scaled down replica set {rs['metadata']['name']} from {count} to 0",
                    COMPONENT,
                )
                changed = True
        return changed

    def _prune_history(
        self, deployment: dict[str, Any], old_sets: list[dict[str, Any]], revisions: dict[str, int]
    ) -> bool:
        changed = False
        history = deployment["spec"].get("revisionHistoryLimit", 10)
        retired = sorted(old_sets, key=lambda rs: revisions.get(rs["metadata"]["name"], 0))
        for rs in retired[: max(0, len(retired) - history)]:
            if not self.context.owned(POD, rs):
                self.context.store.remove(
                    REPLICASET, deployment["metadata"]["namespace"], rs["metadata"]["name"]
                )
                changed = True
        return changed

    def _note_revision(self, deployment: dict[str, Any], revision: int) -> bool:
        annotations = deployment["metadata"].get("annotations") or {}
        if annotations.get(REVISION) == str(revision):
            return False
        store = self.context.store
        current = store.get(DEPLOYMENT, deployment["metadata"]["namespace"], deployment["metadata"]["name"])
        if current is None:
            return False
        new_meta = {
            **current["metadata"],
            "annotations": {**(current["metadata"].get("annotations") or {}), REVISION: str(revision)},
        }
        store.put(DEPLOYMENT, {**current, "metadata": new_meta})
        return True
