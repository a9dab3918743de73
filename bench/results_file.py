"""Read a cumemlab results file, plain or gzip-compressed, as cumemlab does:
by its first two bytes (gzip's magic 1f 8b), whatever its name. Shared by
the scripts of bench/ (the committed results are .json.gz)."""
import gzip
import json


def load(path):
    """The parsed JSON of a results file (.json or .json.gz)."""
    with open(path, "rb") as f:
        compressed = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if compressed else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)
