"""REST API routes of scheduling under /api/v1/."""

from django.urls import path

from scheduling.api import member_views, views

urlpatterns = [
    path("apply/", views.ApplyView.as_view(), name="scheduling-apply"),
    path("export/", views.ExportView.as_view(), name="scheduling-export"),
    path("workloads/", views.WorkloadListView.as_view(), name="scheduling-workloads"),
    path("workloads/<int:pk>/", views.WorkloadDetailView.as_view(), name="scheduling-workload"),
    path(
        "workloads/<int:pk>/rebalance/",
        views.WorkloadRebalanceView.as_view(),
        name="scheduling-workload-rebalance",
    ),
    path(
        "workloads/<int:pk>/suspension/",
        views.WorkloadSuspensionView.as_view(),
        name="scheduling-workload-suspension",
    ),
    path(
        "workloads/<int:pk>/rollout/",
        views.WorkloadRolloutView.as_view(),
        name="scheduling-workload-rollout",
    ),
    path(
        "workloads/<int:pk>/members/",
        member_views.WorkloadMembersView.as_view(),
        name="scheduling-workload-members",
    ),
    path(
        "workloads/<int:pk>/logs/", member_views.WorkloadLogsView.as_view(), name="scheduling-workload-logs"
    ),
    path(
        "workloads/<int:pk>/drift/",
        member_views.WorkloadDriftView.as_view(),
        name="scheduling-workload-drift",
    ),
    path("search/", member_views.SearchView.as_view(), name="scheduling-search"),
    path("quotas/", views.QuotaListView.as_view(), name="scheduling-quotas"),
    path("quotas/<str:namespace>/<str:name>/", views.QuotaDetailView.as_view(), name="scheduling-quota"),
    path("policies/", views.PolicyListView.as_view(), name="scheduling-policies"),
    path("policies/<int:pk>/", views.PolicyDetailView.as_view(), name="scheduling-policy"),
    path(
        "policies/<int:pk>/rebalance/",
        views.PolicyRebalanceView.as_view(),
        name="scheduling-policy-rebalance",
    ),
    path("preview/", views.PreviewView.as_view(), name="scheduling-preview"),
    path("audit/", views.AuditListView.as_view(), name="scheduling-audit"),
]
