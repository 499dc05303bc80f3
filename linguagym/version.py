"""The installed version of linguagym, recorded in every result file."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("linguagym")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"
