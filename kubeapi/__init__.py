"""The Kubernetes API door: discovery, OpenAPI, objects, Table output and watch under /k8s."""
