"""Views stored in the metastore (``VIRTUAL_VIEW``), read through an hms catalog.

The analyzer rule (:mod:`hmscatalog.spark.session.hooks`) replaces a relation that names such a view
by the plan Spark's own session catalog makes of a view (``io.hmscatalog.spark.ViewPlans``): the
stored text (Hive's expanded text; for views Spark made, its SQL), parsed under the view's own SQL
settings, resolved in the view's catalog and database, its columns cast to the view's stored schema.
What differs from the built-in catalog is which catalog the text's names resolve in: the hms catalog
that read the view, for a view Hive made (its text names ``db.table``) and for one Spark's built-in
catalog made on this metastore (``spark_catalog``), since both name the metastore's own tables; a
view that names another catalog keeps it.
"""

from __future__ import annotations

from typing import Any

from hmscatalog.metastore.model import Table
from hmscatalog.spark.bridge.jvm import Jvm

SESSION_CATALOG = "spark_catalog"
_NUM_PARTS = "view.catalogAndNamespace.numParts"
_PART = "view.catalogAndNamespace.part.{}"
_DEFAULT_DATABASE = "view.default.database"  # Spark 2.x views


def view_properties(table: Table, catalog: str) -> dict[str, str]:
    """The view's properties, with the catalog and database its text is resolved in."""
    properties = dict(table.parameters)
    if _NUM_PARTS in properties:
        count = int(properties[_NUM_PARTS])
        parts = [properties.get(_PART.format(i), "") for i in range(count)]
        if parts and parts[0] == SESSION_CATALOG:
            parts[0] = catalog
    else:
        parts = [catalog, properties.get(_DEFAULT_DATABASE, table.database)]
    properties[_NUM_PARTS] = str(len(parts))
    properties.update({_PART.format(i): part for i, part in enumerate(parts)})
    return properties


def view_plan(jvm: Jvm, session: Any, catalog: str, table: Table) -> Any:
    """The logical plan of ``table``, a view, as ``catalog.database.name``."""
    text = table.view_expanded_text or table.view_original_text
    if not text:
        jvm.throw(jvm.bare_error(f"view {table.qualified_name} in catalog {catalog} has no "
                                 "query text in the metastore", None))
    return jvm.cls("io.hmscatalog.spark.ViewPlans").plan(
        session, catalog, table.database, table.name,
        jvm.struct_type(table.columns, comments=True), text,
        jvm.hash_map(view_properties(table, catalog)), table.owner,
        table.create_time * 1000, table.parameters.get("comment"))
