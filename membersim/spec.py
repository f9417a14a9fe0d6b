"""ClusterSpec: what one simulated cluster looks like, and its ``name:key=value,...`` CLI form."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

from membersim.quantity import QuantityError, parse_quantity

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_VERSION = re.compile(r"^1\.(\d+)\.(\d+)$")
_LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


class SpecError(ValueError):
    """A cluster description that cannot be served."""


@dataclass
class ClusterSpec:
    """One simulated member cluster. Every field has a working default except ``name``."""

    name: str
    nodes: int = 3
    node_cpu: str = "8"
    node_memory: str = "32Gi"
    node_pods: int = 110
    region: str = ""
    zones: list[str] = field(default_factory=list)
    provider: str = ""
    version: str = "1.31.4"
    pod_cidr: str = "10.244.0.0/16"
    service_cidr: str = "10.96.0.0/12"
    node_cidr_mask: int = 24
    ssd_nodes: int = 0
    control_plane_nodes: int = 0
    labels: dict[str, str] = field(default_factory=dict)
    load: float = 1.0
    token: str = ""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise SpecError naming the first bad field."""
        if not _NAME.match(self.name or ""):
            raise SpecError(
                f"cluster name {self.name!r} must be a DNS label (lowercase letters, digits and '-')"
            )
        if not isinstance(self.nodes, int) or not 0 <= self.nodes <= 5000:
            raise SpecError(f"{self.name}: nodes must be an integer from 0 to 5000, got {self.nodes!r}")
        for label, value in (("cpu", self.node_cpu), ("memory", self.node_memory)):
            try:
                if parse_quantity(value) <= 0:
                    raise SpecError(f"{self.name}: {label} must be positive, got {value!r}")
            except QuantityError as error:
                raise SpecError(f"{self.name}: {label}: {error}") from None
        if not isinstance(self.node_pods, int) or self.node_pods < 1:
            raise SpecError(f"{self.name}: pods must be a positive integer, got {self.node_pods!r}")
        if not _VERSION.match(self.version):
            raise SpecError(f"{self.name}: version must look like 1.31.4, got {self.version!r}")
        for label, cidr in (("pod-cidr", self.pod_cidr), ("service-cidr", self.service_cidr)):
            try:
                ipaddress.ip_network(cidr)
            except ValueError as error:
                raise SpecError(f"{self.name}: {label}: {error}") from None
        pod_net = ipaddress.ip_network(self.pod_cidr)
        if not pod_net.prefixlen <= self.node_cidr_mask <= pod_net.max_prefixlen - 2:
            raise SpecError(
                f"{self.name}: node-cidr-mask-size {self.node_cidr_mask} "
                f"does not fit in pod-cidr {self.pod_cidr}"
            )
        if self.nodes > 2 ** (self.node_cidr_mask - pod_net.prefixlen):
            raise SpecError(
                f"{self.name}: pod-cidr {self.pod_cidr} has room for "
                f"only {2 ** (self.node_cidr_mask - pod_net.prefixlen)} "
                f"node ranges of /{self.node_cidr_mask}, not {self.nodes}"
            )
        if not 0 <= self.ssd_nodes <= self.nodes:
            raise SpecError(
                f"{self.name}: ssd must be between 0 and nodes ({self.nodes}), got {self.ssd_nodes}"
            )
        if not 0 <= self.control_plane_nodes <= self.nodes:
            raise SpecError(
                f"{self.name}: control-plane must be between 0 and "
                f"nodes ({self.nodes}), got {self.control_plane_nodes}"
            )
        for key, value in self.labels.items():
            if not _LABEL_KEY.match(key) or not _LABEL_VALUE.match(str(value)):
                raise SpecError(f"{self.name}: label {key}={value} is not a valid Kubernetes label")
        if not isinstance(self.load, (int, float)) or self.load < 0:
            raise SpecError(f"{self.name}: load must be a non-negative number, got {self.load!r}")
        if isinstance(self.zones, str) or not all(isinstance(z, str) for z in self.zones):
            raise SpecError(f"{self.name}: zones must be a list of strings, got {self.zones!r}")
        if not isinstance(self.labels, dict):
            raise SpecError(f"{self.name}: labels must be a mapping, got {self.labels!r}")
        for zone in self.zones:
            if not _LABEL_VALUE.match(zone):
                raise SpecError(f"{self.name}: zone {zone!r} is not a valid label value")
        for label, value in (("region", self.region), ("provider", self.provider)):
            if not _LABEL_VALUE.match(value):
                raise SpecError(f"{self.name}: {label} {value!r} is not a valid label value")

    @property
    def minor(self) -> int:
        return int(self.version.split(".")[1])


# Documented in `python -m membersim --help`; keep the two in step.
OPTION_HELP = """\
cluster options (NAME:key=value,key=value,...):
  nodes=N              number of nodes (default 3), named NAME-node-1 .. NAME-node-N
  cpu=Q                CPU capacity per node, a quantity (default 8)
  memory=Q             memory capacity per node, a quantity (default 32Gi)
  pods=N               max pods per node (default 110)
  region=R             topology.kubernetes.io/region label on every node
  zone=Z | zones=A|B   topology.kubernetes.io/zone; nodes are spread round-robin over the zones
  provider=P           node spec.providerID is P://REGION/NODE (default: no providerID)
  version=1.31.4       Kubernetes version reported by /version and the nodes' kubelets
  pod-cidr=CIDR        cluster pod range (default 10.244.0.0/16); nodes get consecutive slices
  node-cidr-mask-size=N  size of each node's spec.podCIDR slice (default 24)
  service-cidr=CIDR    service range (default 10.96.0.0/12); the kubernetes Service gets its first address
  ssd=N                the first N nodes get the label disk-type=ssd
  control-plane=N      the first N nodes are control-plane nodes (role label and NoSchedule taint)
  label.KEY=VALUE      an extra label on every node (repeatable)
  load=F               CPU/memory usage factor applied to pod requests in metrics.k8s.io (default 1.0)
  token=T              bearer token (default: random)
"""

_INT_KEYS = {
    "nodes": "nodes",
    "pods": "node_pods",
    "ssd": "ssd_nodes",
    "control-plane": "control_plane_nodes",
    "node-cidr-mask-size": "node_cidr_mask",
}
_STR_KEYS = {
    "cpu": "node_cpu",
    "memory": "node_memory",
    "region": "region",
    "provider": "provider",
    "version": "version",
    "pod-cidr": "pod_cidr",
    "service-cidr": "service_cidr",
    "token": "token",
}


def parse_cluster_option(text: str) -> ClusterSpec:
    """``beijing:nodes=5,region=cn-north,zones=a|b,label.env=prod`` -> ClusterSpec."""
    name, _, rest = text.partition(":")
    values: dict[str, object] = {"name": name.strip()}
    labels: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise SpecError(f"{name}: option {item!r} needs a value (key=value)")
        if key in _INT_KEYS:
            try:
                values[_INT_KEYS[key]] = int(value)
            except ValueError:
                raise SpecError(f"{name}: {key} must be an integer, got {value!r}") from None
        elif key in _STR_KEYS:
            values[_STR_KEYS[key]] = value
        elif key in ("zone", "zones"):
            values["zones"] = [z for z in value.split("|") if z]
        elif key == "load":
            try:
                values["load"] = float(value)
            except ValueError:
                raise SpecError(f"{name}: load must be a number, got {value!r}") from None
        elif key.startswith("label.") and len(key) > 6:
            labels[key[6:]] = value
        else:
            known = sorted([*_INT_KEYS, *_STR_KEYS, "zone", "zones", "load", "label.KEY"])
            raise SpecError(f"{name}: unknown option {key!r} (known: {', '.join(known)})")
    values["labels"] = labels
    return ClusterSpec(**values)  # type: ignore[arg-type]
