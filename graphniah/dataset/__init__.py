"""Dataset stage: a suite's examples as a Hugging Face datasets folder, and everything that reads one.

``export`` writes the folder (Parquet per task, dataset card, manifest of hashes); ``read`` rebuilds
the examples from it; ``use`` runs models, checks and reports from a folder alone; the manifest
(the tamper check) and the columns are file formats (``graphniah.formats.dataset``); ``card`` writes the card.
"""

from graphniah.dataset.export import ExportResult, export_if_changed, export_suite
from graphniah.dataset.read import Dataset, checked_examples, example_refs, examples_in, iter_dataset_examples, open_dataset, write_examples_file
from graphniah.dataset.use import DatasetCheck, materialize_examples, run_dataset, verify_dataset
from graphniah.formats.dataset import DatasetManifest, check_files, read_manifest, require_intact

__all__ = [
    "Dataset",
    "DatasetCheck",
    "DatasetManifest",
    "ExportResult",
    "check_files",
    "checked_examples",
    "example_refs",
    "examples_in",
    "export_if_changed",
    "export_suite",
    "iter_dataset_examples",
    "materialize_examples",
    "open_dataset",
    "read_manifest",
    "require_intact",
    "run_dataset",
    "verify_dataset",
    "write_examples_file",
]
