"""The capability-test file format: one JSON document per generated set of tests, with a JSON schema
(``capability-tests.schema.json``). It records how it was made (tool version, dataset and its hash, lexicon,
tagger, the generation settings, spec hashes) and holds the tests, each ``{id, capability, text, expected, kind,
provenance}``.

Like ``linguagym.suites``: ``model`` (the file as typed, frozen values, on ``json_object``), ``schema`` (the
schema and the check), ``load`` (``read_tests``, ``parse_tests``, ``load_document``) and ``save``
(``write_tests``). A file read and written again is byte-identical.
"""

from linguagym.capabilities.testfile.load import load_document, parse_tests, read_tests, tests_of
from linguagym.capabilities.testfile.model import FORMAT, VERSION, CapabilityTest, CapabilityTestFile
from linguagym.capabilities.testfile.save import tests_text, write_tests
from linguagym.capabilities.testfile.schema import schema, validate_document

__all__ = ["FORMAT", "VERSION", "CapabilityTest", "CapabilityTestFile", "load_document", "parse_tests", "read_tests",
           "schema", "tests_of", "tests_text", "validate_document", "write_tests"]
