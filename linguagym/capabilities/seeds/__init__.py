"""Seed tests: capability specifications as data (one YAML file per capability), the search rules that pick dataset
sentences, the templates that rewrite them, and seed generation."""
