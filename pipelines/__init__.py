"""The model registry and the experiment suites, shipped as package data (see graphniah.resources)."""
