"""Capability tests in the lab: the pages (``views``), the generate and test jobs (``jobs``), their stored results
(``results``) and queries (``store``)."""
