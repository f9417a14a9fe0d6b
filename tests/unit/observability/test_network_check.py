"""The network check flags every overlapping pair of ranges across clusters, and only those."""

from observability.network import ClusterNetworks, check


def test_overlapping_pod_cidrs_of_two_clusters_are_flagged_with_the_shared_range():
    report = check(
        [
            ClusterNetworks("beijing", ("10.1.0.0/16",), ("10.96.0.0/16",)),
            ClusterNetworks("shanghai", ("10.1.128.0/17",), ("10.97.0.0/16",)),
            ClusterNetworks("guangzhou", ("10.3.0.0/16",), ("10.98.0.0/16",)),
        ]
    )
    [overlap] = report.overlaps
    assert (overlap.cluster_a, overlap.kind_a, overlap.cidr_a) == ("beijing", "pod", "10.1.0.0/16")
    assert (overlap.cluster_b, overlap.kind_b, overlap.cidr_b) == ("shanghai", "pod", "10.1.128.0/17")
    assert overlap.shared == "10.1.128.0/17"
    assert not report.flat_networking_possible
    assert [c.overlaps for c in report.clusters] == [1, 0, 1]  # beijing, guangzhou, shanghai
    assert report.for_cluster("guangzhou") == ()


def test_service_ranges_and_pod_against_service_ranges_count_too():
    report = check(
        [
            ClusterNetworks("a", ("10.1.0.0/16",), ("10.96.0.0/12",)),
            ClusterNetworks("b", ("10.96.0.0/16",), ("10.100.0.0/16",)),
        ]
    )
    pairs = {(o.kind_a, o.cidr_a, o.kind_b, o.cidr_b, o.shared) for o in report.overlaps}
    assert pairs == {
        ("service", "10.96.0.0/12", "pod", "10.96.0.0/16", "10.96.0.0/16"),
        ("service", "10.96.0.0/12", "service", "10.100.0.0/16", "10.100.0.0/16"),
    }


def test_disjoint_ranges_allow_flat_networking():
    report = check(
        [
            ClusterNetworks("a", ("10.1.0.0/16",), ("10.96.0.0/16",)),
            ClusterNetworks("b", ("10.2.0.0/16", "fd00:2::/64"), ("10.97.0.0/16",)),
            ClusterNetworks("c", ("fd00:3::/64",), ("10.98.0.0/16",)),
        ]
    )
    assert report.overlaps == ()
    assert report.flat_networking_possible


def test_a_range_within_one_cluster_is_not_an_overlap_between_clusters():
    report = check([ClusterNetworks("a", ("10.0.0.0/8",), ("10.96.0.0/12",)), ClusterNetworks("b")])
    assert report.overlaps == ()
    assert report.unknown == ("b",)
    assert not report.flat_networking_possible


def test_an_unreadable_cidr_is_reported_not_crashed_on():
    report = check(
        [ClusterNetworks("a", ("10.1.0.0/16", "banana"), ()), ClusterNetworks("b", ("10.1.0.0/24",))]
    )
    assert report.clusters[0].unreadable == ("banana",)
    assert len(report.overlaps) == 1
