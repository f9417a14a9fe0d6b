"""Page routes of scheduling."""

from django.urls import include, path

from scheduling import member_views, views

app_name = "scheduling"
urlpatterns = [
    path("workloads/", views.workloads, name="workloads"),
    path("workloads/<int:pk>/", views.workload, name="workload"),
    path("workloads/<int:pk>/rebalance/", views.workload_rebalance, name="workload-rebalance"),
    path("workloads/<int:pk>/hold/", views.workload_hold, name="workload-hold"),
    path("workloads/<int:pk>/rollout/", views.workload_rollout, name="workload-rollout"),
    path("workloads/<int:pk>/rollout/step/", views.workload_rollout_step, name="workload-rollout-step"),
    path("workloads/<int:pk>/across/", member_views.workload_across_clusters, name="workload-across"),
    path("workloads/<int:pk>/logs/", member_views.pod_logs_page, name="pod-logs"),
    path("workloads/<int:pk>/logs/follow/", member_views.pod_logs_follow, name="pod-logs-follow"),
    path("workloads/<int:pk>/drift/", member_views.workload_drift, name="workload-drift"),
    path("workloads/<int:pk>/reapply/", member_views.workload_reapply, name="workload-reapply"),
    path("workloads/drift-counts/", member_views.drift_counts, name="drift-counts"),
    path("search/", member_views.search_page, name="search"),
    path("search/in/<str:name>/", member_views.search_in_cluster, name="search-cluster"),
    path("search/object/", member_views.member_object, name="member-object"),
    path("quotas/", views.quota_panel, name="quotas"),
    path("policies/", views.policies, name="policies"),
    path("policies/<int:pk>/", views.policy, name="policy"),
    path("policies/<int:pk>/rebalance/", views.policy_rebalance, name="policy-rebalance"),
    path("workloads/on/<str:name>/", views.cluster_workloads, name="cluster_workloads"),
    path("workloads/moves/", views.moves, name="moves"),
    path("audit/", views.audit_log, name="audit"),
    path("", include("scheduling.editor.urls")),
]
