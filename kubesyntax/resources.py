"""Resource amounts as Kubernetes and Karmada write them in a ResourceList, and the short forms pages show."""

from __future__ import annotations

from fractions import Fraction

from kubesyntax.quantities import BINARY_SI, DECIMAL_SI, canonical, milli_units, whole_units

BINARY_RESOURCES = ("memory", "ephemeral-storage")
HUMAN_BINARY = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))


def resource_format(name: str) -> str:
    """Bytes (memory, storage, huge pages) are binary SI; CPU, pods and extended resources decimal SI."""
    return BINARY_SI if name in BINARY_RESOURCES or name.startswith("hugepages-") else DECIMAL_SI


def format_resource(name: str, amount: Fraction) -> str:
    """The canonical quantity Karmada writes: CPU to the millicore, anything else to the whole unit,
    rounded up (1.5 cores is 1500m, 2^30 bytes of memory 1Gi)."""
    if name == "cpu":
        return canonical(Fraction(milli_units(amount), 1000), DECIMAL_SI)
    return canonical(Fraction(whole_units(amount)), resource_format(name))


def human_cpu(millicores: float | None) -> str:
    """Cores for a page: one decimal under ten cores unless whole (1.5, 2, 12); an em dash when unknown."""
    if millicores is None:
        return "—"
    cores = millicores / 1000
    return f"{cores:.0f}" if cores >= 10 or cores == int(cores) else f"{cores:.1f}"


def human_bytes(num_bytes: float | None) -> str:
    """A binary size for a page with at most one decimal (1.5Gi, 32Gi); an em dash when unknown."""
    if num_bytes is None:
        return "—"
    for suffix, size in HUMAN_BINARY:
        if num_bytes >= size:
            value = num_bytes / size
            return f"{value:.0f}{suffix}" if value >= 10 else f"{value:.1f}{suffix}"
    return f"{num_bytes:.0f}"
