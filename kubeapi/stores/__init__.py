"""One store per family of models: rows in, Kubernetes objects out, and writes through the services."""
