"""File systems by URI scheme: local disk and S3 (through pyarrow), with counted listings."""

from hmscatalog.storage.filesystems import Entry, Storage, open_storage

__all__ = ["Entry", "Storage", "open_storage"]
