"""Page routes of clusters."""

from django.urls import path

from clusters import views

app_name = "clusters"
urlpatterns = [
    path("", views.cluster_list, name="list"),
    path("export.txt", views.export_text, name="export"),
    path("labels/", views.bulk_labels, name="bulk_labels"),
    path("join/", views.join, name="join"),
    path("join/contexts/", views.join_contexts, name="join_contexts"),
    path("join/test/", views.join_test, name="join_test"),
    path("fleet/", views.fleet, name="fleet"),
    path("c/<str:name>/", views.detail, name="detail"),
    path("c/<str:name>/panel/", views.panel, name="panel"),
    path("c/<str:name>/labels/", views.edit_labels, name="labels"),
    path("c/<str:name>/labels/row/", views.label_row, name="label_row"),
    path("c/<str:name>/taints/", views.taints, name="taints"),
    path("c/<str:name>/unjoin/", views.unjoin, name="unjoin"),
]
urlpatterns += [
    path("conventions/", views.conventions, name="conventions"),
    path("conventions/save/", views.convention_save, name="convention_save"),
    path("conventions/fix/", views.lint_fix, name="lint_fix"),
]
