"""The sync's inputs digest on each binding (empty until its next sync stores it)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scheduling", "0014_work_fillfactor"),
    ]

    operations = [
        migrations.AddField(
            model_name="resourcebinding",
            name="sync_inputs_digest",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
    ]
