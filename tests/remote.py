"""Remote storage for tests: a location on moto's S3 (through S3A) or on the mini HDFS, and a
way to put a local directory tree there."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Remote:
    """One remote file system as a test sees it.

    Attributes:
        scheme: ``s3a`` or ``hdfs``.
        root: the test's own directory on it (``s3a://bucket/<test>``, ``hdfs://.../<test>``).
    """

    scheme: str
    root: str
    spark: Any
    moto: Any = None  # the MotoServer, on S3

    def location(self, name: str) -> str:
        return f"{self.root}/{name}"

    def upload(self, local: Path, name: str) -> str:
        """Copy the tree under ``local`` to :meth:`location` ``(name)``; returns it."""
        target = self.location(name)
        if self.moto is not None:
            bucket, _, prefix = target.removeprefix("s3a://").partition("/")
            self.moto.upload_tree(bucket, local, prefix)
        else:
            jvm = self.spark._jvm
            path = jvm.org.apache.hadoop.fs.Path(target)
            fs = path.getFileSystem(self.spark._jsc.hadoopConfiguration())
            fs.copyFromLocalFile(False, True, jvm.org.apache.hadoop.fs.Path(f"file:{local}"),
                                 path)
        return target

    def files(self, name: str) -> list[str]:
        """Every file under :meth:`location` ``(name)``, as paths relative to it, sorted."""
        jvm = self.spark._jvm
        base = self.location(name)
        path = jvm.org.apache.hadoop.fs.Path(base)
        fs = path.getFileSystem(self.spark._jsc.hadoopConfiguration())
        if not fs.exists(path):
            return []
        found = []
        listing = fs.listFiles(path, True)
        while listing.hasNext():
            found.append(str(listing.next().getPath().toUri().getPath()))
        prefix = str(path.toUri().getPath()).rstrip("/") + "/"
        return sorted(f.removeprefix(prefix) for f in found)


def unique_root(scheme: str, base: str) -> str:
    return f"{base}/{scheme}-{uuid.uuid4().hex[:10]}"
