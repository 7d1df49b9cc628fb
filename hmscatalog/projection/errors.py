"""Errors of partition projection.

Both derive from :class:`ValueError` as well as :class:`HmsCatalogError`: they are caused by what
the user wrote (table properties, a WHERE clause), not by the metastore or storage. A scan that
would cover too many partitions raises :class:`hmscatalog.errors.TooManyPartitions`.
"""

from __future__ import annotations

from hmscatalog.errors import HmsCatalogError


class InvalidProjection(HmsCatalogError, ValueError):
    """The table's partition projection properties are missing, malformed or contradictory.

    Messages name the table (when known), the column and the property, in the form Trino uses
    (``Column projection for column 'dt' failed. ...``) so that users of Athena and Trino
    recognise them.
    """


class UnsupportedProjectionFilter(HmsCatalogError, ValueError):
    """A query cannot be planned on a projected table: an ``injected`` column is not pinned to
    values by static equality conditions, as Athena requires."""
