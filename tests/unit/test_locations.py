"""Local paths of metastore locations, taken literally as Hadoop paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from hmscatalog.storage.locations import local_path


@pytest.mark.parametrize(("location", "expected"), [
    ("file:/w/t/dt=a%2Fb", Path("/w/t/dt=a%2Fb")),  # never URL-decoded
    ("file:///w/t", Path("/w/t")),
    ("file://localhost/w/t", Path("/w/t")),
    ("file:/w/t/p=#1?x", Path("/w/t/p=#1?x")),
    ("file://otherhost/w/t", None),
    ("s3a://bucket/w/t", None),
    ("/w/t", None),
    ("", None),
    (None, None),
])
def test_local_path(location: str | None, expected: Path | None) -> None:
    assert local_path(location) == expected
