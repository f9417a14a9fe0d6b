"""Page routes of scheduling."""

app_name = "scheduling"
urlpatterns: list = []
