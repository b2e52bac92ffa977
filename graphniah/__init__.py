"""GraphNIAH: long-context reasoning over the post-cutoff S2AG citation graph."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("graphniah")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+unknown"
