"""Data in: C4.5 files, CSV and DataFrames -> Schema + encoded Dataset."""
from .schema import Attribute, Dataset, Schema
from .names import load_stem, read_names
from .frame import from_frame, read_csv, encode_frame, load_data

__all__ = ["Attribute", "Dataset", "Schema", "load_stem", "read_names", "from_frame",
           "read_csv", "encode_frame", "load_data"]
