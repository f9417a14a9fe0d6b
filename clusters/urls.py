"""Page routes of clusters."""

app_name = "clusters"
urlpatterns: list = []
