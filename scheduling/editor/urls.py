"""Routes of the policy editor, included into the scheduling namespace."""

from django.urls import path

from scheduling.editor import views

urlpatterns = [
    path("policies/new/", views.policy_new, name="policy_new"),
    path("policies/edit/<str:namespace>/<str:name>/", views.policy_edit, name="policy_edit"),
    path("policies/edit-cluster/<str:name>/", views.cluster_policy_edit, name="cluster_policy_edit"),
    path("policies/editor/preview/", views.policy_preview, name="policy_preview"),
    path("policies/editor/switch/", views.policy_switch, name="policy_switch"),
    path("policies/editor/draft/", views.policy_save_draft, name="policy_save_draft"),
    path("policies/editor/review/", views.policy_review, name="policy_review"),
    path("policies/editor/apply/", views.policy_apply, name="policy_apply"),
    path("drill/", views.failure_drill, name="failure_drill"),
]
