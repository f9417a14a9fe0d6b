"""Metric definitions and the counters and histograms every process records into."""
