"""Cluster names are DNS-1123 labels of at most 48 characters, as Karmada requires."""

import pytest

from clusters.names import cluster_name_error


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("beijing", True),
        ("a" * 48, True),
        ("a" * 49, False),
        ("Beijing", False),
        ("bei_jing", False),
        ("-x", False),
    ],
)
def test_cluster_names_are_short_dns_labels(name, ok):
    assert (cluster_name_error(name) is None) is ok
