"""Page routes of observability: /metrics, the Alerts page and the network check."""

app_name = "observability"
urlpatterns: list = []
