"""Page routes of observability: /metrics, the Alerts page and the network check."""

from django.urls import path

from observability import metrics

app_name = "observability"
urlpatterns = [
    path("metrics", metrics.metrics, name="metrics"),
]
