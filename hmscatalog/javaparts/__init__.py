"""Jars compiled when the wheel is built, so that hmscatalog runs where Spark runs, on a JRE.

hmscatalog's Java parts (the Spark plugin, one per supported Spark minor, and the metastore's
launcher) are built from this package's own sources. A wheel made by ``python -m build`` holds
them, compiled by :mod:`.wheel`, with ``manifest.json`` naming each jar and the digest of the
sources it was built from. At run time :func:`find` returns the jar for a digest; when there is
none (a source checkout, or sources changed since the build) the caller builds its jar with the
JDK into the jars cache, as before.

This package imports neither pyspark nor thrift: the wheel's build runs it without them.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

MANIFEST = "manifest.json"


def find(name: str, digest: str) -> Path | None:
    """The prebuilt jar ``name`` if the wheel holds it built from sources with ``digest``."""
    folder = resources.files(__name__)
    try:
        recorded = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if recorded.get(name) != digest:
        return None
    jar = Path(str(folder / name))
    return jar if jar.is_file() else None
