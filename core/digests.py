"""Digests without importing ``hashlib``, which loads OpenSSL (about 2 ms of CPU: a hook, and a refresh after a
turn, would pay it for a few short inputs): the interpreter's own modules, those ``hashlib`` falls back to."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from hashlib import blake2b, md5
else:
    try:
        from _blake2 import blake2b
        from _md5 import md5
    except ImportError:  # pragma: no cover - an interpreter built without them
        from hashlib import blake2b, md5

__all__ = ["blake2b", "folder_md5", "md5"]


def folder_md5(folder: str) -> str:
    """The md5 cursor-agent names a folder's ``chats/<md5>`` bucket after (any string, unpaired surrogates too)."""
    return md5(folder.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()
