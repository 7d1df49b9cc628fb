"""Which files of a tree that hms writes a reader of the bare tree may see.

hms never changes the files a query may be reading: an overwrite of a partition that holds files
writes a version directory of its own below the partition's, ``k=v/hms-v<write id>/``, and
switches the partition's location to it in the metastore; the replaced files (those directly in
``k=v/``, or an older ``hms-v<id>/``) stay for the queries planned before the switch until
``hmscatalog.write.keep-replaced-seconds`` have passed. A reader without the metastore learns the
same from the writes' records in ``<root>/.hms-commits/`` (:mod:`hmscatalog.write.journal`):

* a committed write (``committed``, ``done``) is current: the files and directories it replaced
  (its ``retire`` list) are hidden;
* a write not committed (``writing``, ``committing``, ``aborting``) is not there yet: every
  file and directory named with its write id (its version directory, the files it moves or
  uploads) is hidden.

Once the replaced files are deleted, the record goes too, and each partition directory holds one
version again. A partition directory whose visible files still belong to more than one version
(its own files and an ``hms-v`` directory, or two of those) is an error: a mix is never read.
Overwrites by hmscatalog releases before this layout put an S3 table's new partitions below
``<table>/hms-v<id>/k=v/``; a tree reader meeting such a directory refuses the read (the
metastore knows where each partition is).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hmscatalog.errors import InvalidPartitionSpec
from hmscatalog.storage.filesystems import Entry, Storage
from hmscatalog.storage.globs import FileGroups, Lister
from hmscatalog.write.journal import COMMITS_DIR, VERSION_PREFIX, CommitRecord


@dataclass(frozen=True)
class Versions:
    """What the write records below one root hide.

    Attributes:
        hidden: storage paths of replaced files and directories.
        pending: ids of writes not committed; a name holding one is hidden.
        touched: directories holding (or being) what is hidden: a partition directory at or
            above one of them must be listed file by file to be read.
    """

    hidden: frozenset[str] = frozenset()
    pending: tuple[str, ...] = ()
    touched: tuple[str, ...] = ()

    def visible(self, entry: Entry) -> bool:
        return entry.path not in self.hidden and not any(w in entry.name for w in self.pending)

    def touches(self, directory: str) -> bool:
        """Whether something hidden lies in or below ``directory``."""
        inside = directory.rstrip("/") + "/"
        return any(path == directory or path.startswith(inside) for path in self.touched)

    def filtered(self, list_many: Lister) -> Lister:
        """``list_many`` without the hidden entries."""
        def listing(paths: list[str]) -> list[list[Entry] | None]:
            return [None if entries is None else [e for e in entries if self.visible(e)]
                    for entries in list_many(paths)]
        return listing


def load_versions(storage: Storage, root: str) -> Versions:
    """The versions the records in ``<root>/.hms-commits/`` decide (one listing of that
    directory, then one read per record)."""
    directory = f"{root.rstrip('/')}/{COMMITS_DIR}"
    hidden: set[str] = set()
    pending: list[str] = []
    touched: set[str] = set()
    for entry in storage.list(directory) or ():
        if entry.is_dir or not entry.name.endswith(".json"):
            continue
        try:
            text = storage.read_text(entry.path)
        except FileNotFoundError:
            continue  # its write ended meanwhile, and what it replaced is gone
        record = CommitRecord.from_json(text, Path(entry.path))
        if record.state in ("committed", "done"):
            hidden.update(record.retire)
            touched.update(record.retire)
        else:
            pending.append(record.write_id)
            touched.update(record.targets.values())
            touched.update(target.rpartition("/")[0] for _, target in record.moves)
    return Versions(frozenset(hidden), tuple(pending), tuple(sorted(touched)))


def is_version(name: str) -> bool:
    return name.startswith(VERSION_PREFIX)


def check_one_version(storage: Storage, where: str, directory: str, held: FileGroups) -> None:
    """Refuse a partition directory whose visible files (``held``: the directories below it
    holding them) belong to more than one version.

    Raises:
        InvalidPartitionSpec: naming the directory and its versions.
    """
    inside = directory.rstrip("/") + "/"
    versions = set()
    for holder, _ in held:
        first = holder[len(inside):].partition("/")[0] if holder.startswith(inside) else ""
        versions.add(first if is_version(first) else "")
    if len(versions) > 1:
        names = ", ".join(sorted(v or "its own files" for v in versions))
        raise InvalidPartitionSpec(
            f"{where}: partition directory {storage.uri(directory)} holds the files of "
            f"{len(versions)} versions ({names}), and no write record says which one is "
            "current: read it through the catalog, or remove the versions that are not")


def refuse_old_layout(storage: Storage, where: str, entry: Entry) -> None:
    """Refuse a version directory directly below the root: an S3 overwrite by an earlier
    release moved partitions there, which a tree reader would miss.

    Raises:
        InvalidPartitionSpec: naming the directory.
    """
    raise InvalidPartitionSpec(
        f"{where}: {storage.uri(entry.path)} is a version directory of an overwrite, holding "
        "partitions that replaced those in the key=value directories beside it; read the "
        "table through the catalog, which knows where each partition is")
