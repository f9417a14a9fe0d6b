"""The starter label conventions: env, location/region, location/zone, provider."""

from django.db import migrations

STARTER = (
    {
        "key": "env",
        "description": "Deployment environment of the cluster.",
        "required": True,
        "allowed_values": ["dev", "staging", "prod"],
        "example": "prod",
        "aliases": ["environment", "stage"],
    },
    {
        "key": "location/region",
        "description": "Region the cluster runs in; placement spreads across regions by this key.",
        "required": True,
        "example": "cn-north",
        "aliases": ["region", "topology.kubernetes.io/region"],
    },
    {
        "key": "location/zone",
        "description": "Availability zone of a single-zone cluster.",
        "required": False,
        "example": "cn-north-a",
        "aliases": ["zone", "topology.kubernetes.io/zone"],
    },
    {
        "key": "provider",
        "description": "Cloud provider or data centre operator.",
        "required": False,
        "example": "aliyun",
        "aliases": ["cloud", "cloud-provider"],
    },
)


def create(apps, schema_editor):
    LabelConvention = apps.get_model("clusters", "LabelConvention")
    for rule in STARTER:
        LabelConvention.objects.get_or_create(key=rule["key"], defaults=rule)


def remove(apps, schema_editor):
    apps.get_model("clusters", "LabelConvention").objects.filter(key__in=[r["key"] for r in STARTER]).delete()


class Migration(migrations.Migration):
    dependencies = [("clusters", "0003_label_conventions")]
    operations = [migrations.RunPython(create, remove)]
