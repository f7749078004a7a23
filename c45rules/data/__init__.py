"""Data in: C4.5 files, CSV and DataFrames -> Schema + encoded Dataset."""
from .._lazy import lazy_exports

_WHERE = {**dict.fromkeys(("Attribute", "Dataset", "Schema"), ".schema"),
          **dict.fromkeys(("load_stem", "read_names"), ".names"),
          **dict.fromkeys(("from_frame", "read_csv", "encode_frame", "load_data"), ".frame")}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = ["Attribute", "Dataset", "Schema", "load_stem", "read_names", "from_frame",
           "read_csv", "encode_frame", "load_data"]
