# Recorded counters and histograms moved to the metrics app; the table stays (metrics.Tally uses it).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("observability", "0002_receiver_silence_alert_delivery"),
        ("metrics", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[migrations.DeleteModel(name="Tally")],
        ),
    ]
