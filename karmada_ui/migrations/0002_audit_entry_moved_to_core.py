# The audit log moved to the core app; the table stays (core.AuditEntry uses it).

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("karmada_ui", "0001_initial"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[migrations.DeleteModel(name="AuditEntry")],
        ),
    ]
