"""The SyntaxGym test-suite format: model, loading (both dialects), schema, formulas, metrics, saving."""

from linguagym.suites.examples import example_suite_paths
from linguagym.suites.formula import Outcome, RegionRef, Tolerance, evaluate, format_formula, parse_formula
from linguagym.suites.load import LoadedSuite, SuiteNormalizationWarning, load_suite, read_suite
from linguagym.suites.metrics import METRIC_NAMES, aggregate
from linguagym.suites.model import Condition, Item, Prediction, Region, Suite, SuiteMeta
from linguagym.suites.save import save_suite, suite_to_dict, suite_to_json

__all__ = [
    "METRIC_NAMES", "Condition", "Item", "LoadedSuite", "Outcome", "Prediction", "Region", "RegionRef",
    "Suite", "SuiteMeta", "SuiteNormalizationWarning", "Tolerance", "aggregate", "evaluate",
    "example_suite_paths", "format_formula", "load_suite", "parse_formula", "read_suite", "save_suite",
    "suite_to_dict", "suite_to_json",
]
