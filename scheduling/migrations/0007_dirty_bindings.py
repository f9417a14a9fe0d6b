# The work queue keyed by object: a dirty mark per binding, and the index of what placements select on.

import django.db.models.deletion
from django.db import migrations, models


def index_placements(apps, schema_editor):
    from scheduling.karmada.selection import placement_keys

    binding_model = apps.get_model("scheduling", "ResourceBinding")
    key_model = apps.get_model("scheduling", "PlacementKey")
    rows = []
    for binding_id, placement in binding_model.objects.values_list("pk", "placement").iterator():
        rows += [key_model(binding_id=binding_id, key=key) for key in sorted(placement_keys(placement or {}))]
    key_model.objects.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("scheduling", "0006_template_status"),
    ]

    operations = [
        migrations.AddField(
            model_name="resourcebinding",
            name="dirty_since",
            field=models.DateTimeField(blank=True, db_index=True, null=True),
        ),
        migrations.CreateModel(
            name="PlacementKey",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("key", models.CharField(max_length=400)),
                (
                    "binding",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="placement_keys",
                        to="scheduling.resourcebinding",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("key", "binding"), name="placement_key_identity")
                ],
            },
        ),
        migrations.RunPython(index_placements, migrations.RunPython.noop),
    ]
