"""File systems by URI scheme: local disk and S3, with counted listings; every change hmscatalog
makes to files (directories made, files moved, deleted, written) goes through here."""

from hmscatalog.storage.filesystems import Entry, Storage
from hmscatalog.storage.local import LocalStorage
from hmscatalog.storage.opening import created_directories, open_storage

__all__ = ["Entry", "LocalStorage", "Storage", "created_directories", "open_storage"]
