"""REST API routes of scheduling under /api/v1/."""

from django.urls import path

from scheduling import api

urlpatterns = [
    path("apply/", api.ApplyView.as_view(), name="scheduling-apply"),
    path("export/", api.ExportView.as_view(), name="scheduling-export"),
    path("workloads/", api.WorkloadListView.as_view(), name="scheduling-workloads"),
    path("workloads/<int:pk>/", api.WorkloadDetailView.as_view(), name="scheduling-workload"),
    path(
        "workloads/<int:pk>/rebalance/",
        api.WorkloadRebalanceView.as_view(),
        name="scheduling-workload-rebalance",
    ),
    path("policies/", api.PolicyListView.as_view(), name="scheduling-policies"),
    path("policies/<int:pk>/", api.PolicyDetailView.as_view(), name="scheduling-policy"),
    path(
        "policies/<int:pk>/rebalance/", api.PolicyRebalanceView.as_view(), name="scheduling-policy-rebalance"
    ),
    path("preview/", api.PreviewView.as_view(), name="scheduling-preview"),
    path("audit/", api.AuditListView.as_view(), name="scheduling-audit"),
]
