"""The plugin's generated source forwards exactly the Python catalog's public methods."""

from __future__ import annotations

from hmscatalog.javaparts.spark_plugin import FORWARDED
from hmscatalog.spark.catalog import HmsCatalog


def test_forwarded_names_are_the_catalogs_public_methods() -> None:
    public = {name for name in dir(HmsCatalog)
              if not name.startswith("_") and callable(getattr(HmsCatalog, name))}
    assert set(FORWARDED) == public
    assert len(FORWARDED) == len(public)
