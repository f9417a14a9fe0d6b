# Recorded counters and histograms moved here from the observability app; the table stays where it was.

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("observability", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Tally",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("name", models.CharField(max_length=120)),
                        ("labels", models.CharField(max_length=500)),
                        ("le", models.CharField(blank=True, max_length=32)),
                        ("window", models.DateTimeField()),
                        ("count", models.FloatField(default=0)),
                        ("total", models.FloatField(default=0)),
                    ],
                    options={
                        "db_table": "observability_tally",
                        "indexes": [models.Index(fields=["name", "window"], name="observabili_name_93609a_idx")],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("name", "labels", "le", "window"), name="tally_one_row_per_window"
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
