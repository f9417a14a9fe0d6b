"""Room on every page of scheduling_work for its rows' next versions (PostgreSQL only).

A Work is written again within seconds of its insert (applied, then the member's status), and none of
those writes touches an indexed column; at the default fillfactor of 100 its page is full, so each
write put the new row version on another page and added an entry to each of the table's five indexes
(a non-HOT update: 908 of 9,161 updates were HOT in a 10,000-Work seeding, and the table held 2.2 rows
a page). At 40 a page keeps room for the next version of each of its rows (a Work is about 1.3 kB
when written, 1.6 kB once applied; at 50 a third of the first writes still moved): the versions stay
on their page (HOT) and the indexes are not touched. Only pages written from now on are laid out so:
the statement changes the table's options, not its rows, and is instant on any number of Works.
"""

from django.db import migrations

FILLFACTOR = "ALTER TABLE scheduling_work SET (fillfactor = 40)"
DEFAULT = "ALTER TABLE scheduling_work RESET (fillfactor)"


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            with schema_editor.connection.cursor() as cursor:
                cursor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("scheduling", "0013_binding_reconcile_digests"),
    ]

    operations = [migrations.RunPython(on_postgresql(FILLFACTOR), on_postgresql(DEFAULT))]
