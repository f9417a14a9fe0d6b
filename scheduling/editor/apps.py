"""The policy editor as its own app, so its drafts live in their own table and migrations."""

from django.apps import AppConfig


class PolicyEditorConfig(AppConfig):
    name = "scheduling.editor"
    label = "policy_editor"
    verbose_name = "Policy editor"
    default_auto_field = "django.db.models.BigAutoField"
