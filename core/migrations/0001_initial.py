# The audit log moved here from the karmada_ui app; its table stays where it was.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("karmada_ui", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="AuditEntry",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("username", models.CharField(blank=True, help_text="Kept when the user is deleted.", max_length=150)),
                        ("action", models.CharField(max_length=63)),
                        ("object_kind", models.CharField(max_length=63)),
                        ("object_namespace", models.CharField(blank=True, max_length=253)),
                        ("object_name", models.CharField(max_length=253)),
                        ("summary", models.TextField(blank=True)),
                        ("placement_delta", models.JSONField(blank=True, default=dict, help_text="{cluster: {before, after}} for every cluster whose replicas changed.")),
                        ("user", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "verbose_name_plural": "audit entries",
                        "ordering": ["-created_at", "-id"],
                        "db_table": "karmada_ui_auditentry",
                    },
                ),
            ],
        ),
    ]
