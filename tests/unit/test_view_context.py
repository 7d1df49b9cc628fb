"""Where the names in a view's text are resolved when hms reads the view."""

from __future__ import annotations

from hmscatalog.metastore.model import VIRTUAL_VIEW, Table
from hmscatalog.spark.statements.views import view_properties


def view(**parameters: str) -> Table:
    return Table(database="sales", name="v", columns=(), table_type=VIRTUAL_VIEW,
                 parameters=parameters)


def context(props: dict[str, str]) -> list[str]:
    count = int(props["view.catalogAndNamespace.numParts"])
    return [props[f"view.catalogAndNamespace.part.{i}"] for i in range(count)]


def test_a_view_hive_made_is_resolved_in_its_database_of_the_reading_catalog() -> None:
    assert context(view_properties(view(), "hms")) == ["hms", "sales"]


def test_the_builtin_catalogs_views_name_this_metastore_as_spark_catalog() -> None:
    made = view(**{"view.catalogAndNamespace.numParts": "2",
                   "view.catalogAndNamespace.part.0": "spark_catalog",
                   "view.catalogAndNamespace.part.1": "other", "k": "v"})
    props = view_properties(made, "warehouse")
    assert context(props) == ["warehouse", "other"]
    assert props["k"] == "v"


def test_a_view_made_in_another_catalog_keeps_it() -> None:
    made = view(**{"view.catalogAndNamespace.numParts": "3",
                   "view.catalogAndNamespace.part.0": "lake",
                   "view.catalogAndNamespace.part.1": "a",
                   "view.catalogAndNamespace.part.2": "b"})
    assert context(view_properties(made, "hms")) == ["lake", "a", "b"]


def test_spark_2_views_name_their_default_database() -> None:
    made = view(**{"view.default.database": "old"})
    assert context(view_properties(made, "hms")) == ["hms", "old"]
