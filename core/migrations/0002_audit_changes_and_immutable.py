# Audit entries keep the diff of each change, and on PostgreSQL the table itself refuses to have an
# entry changed or deleted (a second line behind the model). SQLite has no such trigger here.

from django.db import migrations, models

IMMUTABLE_SQL = """
CREATE OR REPLACE FUNCTION karmada_ui_auditentry_immutable() RETURNS trigger AS $$
BEGIN
    -- Deleting a user clears the link to it and nothing else; the username stays in the entry.
    IF TG_OP = 'UPDATE' AND NEW.user_id IS NULL AND OLD.user_id IS NOT NULL
       AND (to_jsonb(NEW) - 'user_id') = (to_jsonb(OLD) - 'user_id') THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit entries cannot be changed or deleted (% of entry %)', TG_OP, OLD.id
        USING ERRCODE = 'insufficient_privilege';
END
$$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS karmada_ui_auditentry_immutable ON karmada_ui_auditentry;
CREATE TRIGGER karmada_ui_auditentry_immutable
    BEFORE UPDATE OR DELETE ON karmada_ui_auditentry
    FOR EACH ROW EXECUTE FUNCTION karmada_ui_auditentry_immutable();
"""
MUTABLE_SQL = """
DROP TRIGGER IF EXISTS karmada_ui_auditentry_immutable ON karmada_ui_auditentry;
DROP FUNCTION IF EXISTS karmada_ui_auditentry_immutable();
"""


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(sql)  # no parameters: plpgsql's own % placeholders stay as they are

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditentry",
            name="changes",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="{field: {before, after}} for every field the change touched; secrets redacted.",
            ),
        ),
        migrations.RunPython(on_postgresql(IMMUTABLE_SQL), on_postgresql(MUTABLE_SQL)),
    ]
