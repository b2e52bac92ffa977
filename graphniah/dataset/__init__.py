"""Dataset stage: a suite's examples as a Hugging Face datasets folder, and everything that reads one.

``export`` writes the folder (Parquet per task, dataset card, manifest of hashes); ``use`` runs models,
checks and reports from a folder alone; ``card`` writes the card. The folder is a file format
(``graphniah.formats.dataset``): its columns, its manifest (the tamper check) and its reader, which
rebuilds the examples; the names here re-export the reader for the stage's users.
"""

from graphniah.dataset.export import ExportResult, export_if_changed, export_suite
from graphniah.dataset.use import DatasetCheck, materialize_examples, run_dataset, verify_dataset
from graphniah.formats.dataset import (
    Dataset,
    DatasetManifest,
    check_files,
    checked_examples,
    example_refs,
    examples_in,
    iter_dataset_examples,
    open_dataset,
    read_manifest,
    require_intact,
    write_examples_file,
)

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
