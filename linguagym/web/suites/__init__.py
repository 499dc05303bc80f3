"""Suites in the lab: the library's pages (``views``), many files or a zip uploaded at once (``bulk_upload``),
and the bundled starter sets with SyntaxGym 2020 (``starter``, ``starter_views``)."""
