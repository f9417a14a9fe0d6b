"""Routes of the Kubernetes API under /k8s. Further routes (say, a cluster proxy) go before `objects`."""

from __future__ import annotations

from django.urls import path, re_path

from clusters.proxy import cluster_proxy
from kubeapi import views

app_name = "kubeapi"

GROUP = r"(?P<group>[a-z0-9.-]+\.[a-z0-9.-]+|[a-z0-9-]+)"
NAME = r"(?P<name>[^/]+)"
NS = r"namespaces/(?P<namespace>[^/]+)/"
PLURAL = r"(?P<plural>[a-z0-9-]+)"

discovery = [
    path("version", views.version, name="version"),
    path("version/", views.version),
    path("api", views.api_root, name="api"),
    path("api/v1", views.group_version, {"version": "v1"}, name="core-v1"),
    path("apis", views.apis_root, name="apis"),
    re_path(rf"^apis/{GROUP}$", views.api_group, name="group"),
    re_path(rf"^apis/{GROUP}/(?P<version>v[a-z0-9]+)$", views.group_version, name="group-version"),
    path("openapi/v2", views.openapi_v2, name="openapi-v2"),
    path("openapi/v3", views.openapi_v3_index, name="openapi-v3"),
    path("openapi/v3/api/v1", views.openapi_v3, {"version": "v1"}, name="openapi-v3-core"),
    re_path(rf"^openapi/v3/apis/{GROUP}/(?P<version>v[a-z0-9]+)$", views.openapi_v3, name="openapi-v3-group"),
    path(
        "apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        views.self_subject_access_review,
        name="selfsubjectaccessreviews",
    ),
]

CORE = r"^api/(?P<version>v1)/"
NAMED = rf"^apis/{GROUP}/(?P<version>v[a-z0-9]+)/"
objects = []
for prefix, label in ((CORE, "core"), (NAMED, "named")):
    objects += [
        re_path(rf"{prefix}{NS}{PLURAL}$", views.collection, name=f"{label}-namespaced-collection"),
        re_path(rf"{prefix}{NS}{PLURAL}/{NAME}$", views.item, name=f"{label}-namespaced-item"),
        re_path(
            rf"{prefix}{NS}{PLURAL}/{NAME}/(?P<subresource>[a-z]+)$",
            views.item,
            name=f"{label}-namespaced-sub",
        ),
        re_path(rf"{prefix}{PLURAL}$", views.collection, name=f"{label}-collection"),
        re_path(rf"{prefix}{PLURAL}/{NAME}$", views.item, name=f"{label}-item"),
        re_path(rf"{prefix}{PLURAL}/{NAME}/(?P<subresource>[a-z]+)$", views.item, name=f"{label}-sub"),
    ]

# The cluster proxy before the objects: its paths would otherwise read as a Cluster's subresource.
PROXY = r"^apis/cluster\.karmada\.io/v1alpha1/clusters/(?P<name>[^/]+)/proxy(?:/(?P<path>.*))?$"

urlpatterns = [*discovery, re_path(PROXY, cluster_proxy, name="cluster-proxy"), *objects]
