"""Page routes of observability: /metrics, the Alerts page, silences, receivers and the network check."""

from django.urls import path

from observability import metrics, views

app_name = "observability"
urlpatterns = [
    path("metrics", metrics.metrics, name="metrics"),
    path("alerts/", views.alerts, name="alerts"),
    path("alerts/firing/", views.firing_panel, name="firing-panel"),
    path("alerts/silences/", views.silence_create, name="silence-create"),
    path("alerts/silences/<int:pk>/expire/", views.silence_expire, name="silence-expire"),
    path("alerts/receivers/", views.receivers, name="receivers"),
    path("alerts/receivers/<int:pk>/", views.receivers, name="receiver-edit"),
    path("alerts/receivers/<int:pk>/delete/", views.receiver_delete, name="receiver-delete"),
    path("network/", views.network, name="network"),
    path("network/clusters/<str:name>/", views.network_panel, name="network-panel"),
]
