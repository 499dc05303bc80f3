"""CheckList's perturbations (Ribeiro et al. 2020) for invariance (INV) and directional (DIR) tests: typos,
contractions, name and place swaps, negation, and ``build``, which makes INV and DIR tests from a capability-test
file's expected-label tests."""
