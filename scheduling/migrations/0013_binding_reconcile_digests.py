from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scheduling', '0012_binding_rendered_key'),
    ]

    operations = [
        migrations.AddField(
            model_name='resourcebinding',
            name='detect_digest',
            field=models.CharField(blank=True, default='', max_length=32),
        ),
        migrations.AddField(
            model_name='resourcebinding',
            name='sync_digest',
            field=models.CharField(blank=True, default='', max_length=32),
        ),
        migrations.AddField(
            model_name='resourcebinding',
            name='aggregate_digest',
            field=models.CharField(blank=True, default='', max_length=32),
        ),
    ]
