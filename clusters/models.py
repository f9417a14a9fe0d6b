"""Clusters as Karmada's Cluster object (spec, labels, taints, status), their health samples and events."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F
from django.utils.translation import gettext_lazy as _

from clusters.credentials import decrypt_connection, encrypt_connection
from clusters.k8s import ClusterConnection
from clusters.names import cluster_name_error
from core.json_field import JSONField
from kubesyntax.labels import LabelSyntaxError, check_labels
from kubesyntax.names import label_key_error
from kubesyntax.taints import EFFECTS


def validate_cluster_name(value: str) -> None:
    reason = cluster_name_error(value)
    if reason:
        raise ValidationError(reason, code="invalid")


def validate_labels(value: Any) -> None:
    try:
        check_labels(value)
    except LabelSyntaxError as exc:
        raise ValidationError(str(exc), code="invalid") from exc


def validate_taints(value: Any) -> None:
    if not isinstance(value, list):
        raise ValidationError("taints must be a list", code="invalid")
    for taint in value:
        if not isinstance(taint, dict):
            raise ValidationError("each taint must be a map with key, value and effect", code="invalid")
        reason = label_key_error(str(taint.get("key", "")))
        if reason:
            raise ValidationError(f"taint key {reason}", code="invalid")
        if taint.get("effect") not in EFFECTS:
            raise ValidationError(
                f"taint effect must be one of {', '.join(EFFECTS)}, not {taint.get('effect')!r}",
                code="invalid",
            )


class ReadyState(models.TextChoices):
    """The status of the Ready condition, as in Kubernetes conditions."""

    TRUE = "True", _("Ready")
    FALSE = "False", _("NotReady")
    UNKNOWN = "Unknown", _("Unknown")


class SyncMode(models.TextChoices):
    PUSH = "Push", _("Push")


class ClusterQuerySet(models.QuerySet):
    def bump(self, **changes: Any) -> int:
        """Update spec fields and the resource version together, in one statement."""
        return self.update(resource_version=F("resource_version") + 1, **changes)


class Cluster(models.Model):
    """A member cluster: Karmada's `spec` as columns, `status` as Karmada shapes it plus query columns."""

    name = models.CharField(_("name"), max_length=48, unique=True, validators=[validate_cluster_name])
    api_endpoint = models.CharField(_("API endpoint"), max_length=2048)
    provider = models.CharField(_("provider"), max_length=63, blank=True)
    region = models.CharField(_("region"), max_length=63, blank=True)
    zone = models.CharField(_("zone"), max_length=63, blank=True)
    zones = JSONField(_("zones"), default=list, blank=True)
    labels = JSONField(_("labels"), default=dict, blank=True, validators=[validate_labels])
    taints = JSONField(_("taints"), default=list, blank=True, validators=[validate_taints])
    sync_mode = models.CharField(max_length=8, choices=SyncMode.choices, default=SyncMode.PUSH)
    credentials = models.TextField(blank=True, editable=False)  # Fernet token, see clusters.credentials
    insecure_skip_tls_verify = models.BooleanField(default=False)
    resource_version = models.PositiveBigIntegerField(default=1)

    # Karmada's ClusterStatus, as its JSON: conditions, kubernetesVersion, apiEnablements, nodeSummary,
    # resourceSummary; plus the pages' own query columns below.
    status = JSONField(default=dict, blank=True)
    ready = models.CharField(
        max_length=8, choices=ReadyState.choices, default=ReadyState.UNKNOWN, db_index=True
    )
    ready_reason = models.CharField(max_length=64, blank=True)
    ready_message = models.CharField(max_length=512, blank=True)
    ready_since = models.DateTimeField(null=True, blank=True)
    kubernetes_version = models.CharField(max_length=64, blank=True)
    nodes_total = models.PositiveIntegerField(default=0)
    nodes_ready = models.PositiveIntegerField(default=0)
    cpu_allocatable = models.BigIntegerField(default=0)  # millicores
    cpu_allocated = models.BigIntegerField(default=0)
    memory_allocatable = models.BigIntegerField(default=0)  # bytes
    memory_allocated = models.BigIntegerField(default=0)
    pods_allocatable = models.BigIntegerField(default=0)
    pods_allocated = models.BigIntegerField(default=0)
    cpu_usage = models.BigIntegerField(null=True, blank=True)
    memory_usage = models.BigIntegerField(null=True, blank=True)
    pod_cidrs = JSONField(default=list, blank=True)
    service_cidrs = JSONField(default=list, blank=True)
    probe_latency_ms = models.FloatField(null=True, blank=True)

    # The health state machine (see clusters.health): the last raw observation and since when it holds.
    observed = models.CharField(max_length=8, choices=ReadyState.choices, blank=True)
    observed_reason = models.CharField(max_length=64, blank=True)
    observed_since = models.DateTimeField(null=True, blank=True)
    last_probe_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_collected_at = models.DateTimeField(null=True, blank=True)
    discovery_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)  # a collector is working on it until then

    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    objects = ClusterQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def connection(self) -> ClusterConnection:
        return decrypt_connection(
            self.credentials,
            name=self.name,
            server=self.api_endpoint,
            insecure=self.insecure_skip_tls_verify,
        )

    def set_connection(self, conn: ClusterConnection) -> None:
        """Keep the endpoint and the encrypted credentials of a connection (the caller saves)."""
        self.api_endpoint = conn.server
        self.insecure_skip_tls_verify = conn.insecure_skip_tls_verify
        self.credentials = encrypt_connection(conn)

    @property
    def is_ready(self) -> bool:
        return self.ready == ReadyState.TRUE

    @property
    def cpu_allocation(self) -> float | None:
        return self.cpu_allocated / self.cpu_allocatable if self.cpu_allocatable else None

    @property
    def memory_allocation(self) -> float | None:
        return self.memory_allocated / self.memory_allocatable if self.memory_allocatable else None

    @property
    def unschedulable(self) -> bool:
        return any(t.get("key") == "cluster.karmada.io/unschedulable" for t in self.taints)


class ClusterSample(models.Model):
    """One point of a cluster's health time series; raw every probe, then averaged into coarser buckets."""

    RAW, MINUTE, TEN_MINUTES = 0, 60, 600
    RESOLUTIONS = ((RAW, "raw"), (MINUTE, "1 min"), (TEN_MINUTES, "10 min"))

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="samples")
    at = models.DateTimeField()
    resolution = models.PositiveIntegerField(choices=RESOLUTIONS, default=RAW)
    ready = models.FloatField()  # 1 Ready, 0 not; averages are the Ready fraction of the bucket
    reachable = models.FloatField(default=1.0)
    latency_ms = models.FloatField(null=True)
    nodes_total = models.FloatField(default=0)
    nodes_ready = models.FloatField(default=0)
    pods = models.FloatField(default=0)
    cpu_allocatable = models.FloatField(default=0)
    cpu_allocated = models.FloatField(default=0)
    cpu_usage = models.FloatField(null=True)
    memory_allocatable = models.FloatField(default=0)
    memory_allocated = models.FloatField(default=0)
    memory_usage = models.FloatField(null=True)
    count = models.PositiveIntegerField(default=1)

    class Meta:
        indexes = [models.Index(fields=["cluster", "resolution", "at"])]
        ordering = ["at"]

    def __str__(self) -> str:
        return f"{self.cluster_id}@{self.at.isoformat()}/{self.resolution}"


class ClusterInventory(models.Model):
    """A cluster's nodes and pod requests as the member watcher's list+watch caches hold them.

    The health collection takes them instead of listing while `confirmed_at` is recent: the watcher
    moves it only while both caches are synced and their watches alive, so a stale inventory is never
    read (the collection lists directly instead).
    """

    cluster = models.OneToOneField(
        Cluster, on_delete=models.CASCADE, primary_key=True, related_name="inventory"
    )
    nodes = JSONField(default=list)
    pods = JSONField(default=dict)  # PodTotals.as_json()
    changed_at = models.DateTimeField(null=True)
    confirmed_at = models.DateTimeField(null=True)

    def __str__(self) -> str:
        return f"inventory of {self.cluster_id}"


class ClusterEvent(models.Model):
    """Something that happened to a cluster: Ready transitions, automatic taints, joins, label edits."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(db_index=True)
    reason = models.CharField(max_length=64)
    message = models.CharField(max_length=512)
    ready = models.CharField(max_length=8, choices=ReadyState.choices, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.reason}: {self.message}"


class LabelConvention(models.Model):
    """A rule for one label key: what it means, whether every cluster needs it, which values are allowed."""

    key = models.CharField(_("key"), max_length=317, unique=True)
    description = models.CharField(_("description"), max_length=300, blank=True)
    required = models.BooleanField(_("required"), default=False)
    allowed_values = JSONField(_("allowed values"), default=list, blank=True)
    pattern = models.CharField(_("pattern"), max_length=200, blank=True, help_text=_("a regular expression"))
    example = models.CharField(_("example"), max_length=63, blank=True)
    aliases = JSONField(
        _("aliases"), default=list, blank=True, help_text=_("other keys that mean the same thing")
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key

    def clean(self) -> None:
        from clusters.conventions import convention_errors

        errors = convention_errors(self.key, self.allowed_values, self.pattern, self.aliases, self.example)
        if errors:
            raise ValidationError(errors)
