"""Digests without importing ``hashlib``, which loads OpenSSL (about 2 ms of CPU: a hook, and a refresh after a
turn, would pay it for a few short inputs): the interpreter's own modules, those ``hashlib`` falls back to."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own, without importing typing; type checkers know it
if TYPE_CHECKING:
    from hashlib import blake2b
    from typing import Any
else:
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b

__all__ = ["blake2b", "folder_md5", "sha256_hex"]

#: md5 and sha256, the interpreter's own, each loaded when first used: a hook digests with blake2b alone, and
#: loading the two modules cost every hook about 0.6 M instructions (1.5% of ``python -c pass``).
_OWN: dict[str, Any] = {}


def _own(name: str) -> Any:
    """The interpreter's own ``md5`` or ``sha256`` constructor, loaded once."""
    if name not in _OWN:
        _OWN[name] = _own_md5() if name == "md5" else _own_sha256()
    return _OWN[name]


def _own_md5() -> Any:
    try:
        from _md5 import md5  # type: ignore[import-not-found]  # (no stub: the C module hashlib falls back to)
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import md5
    return md5


def _own_sha256() -> Any:
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.11
        except ImportError:  # pragma: no cover - an interpreter built without it
            from hashlib import sha256
    return sha256


#: Bytes hashed by the interpreter's own sha256 before OpenSSL's is loaded: its own reads about 340 MB/s, OpenSSL's
#: about 1.9 GB/s, so a refresh of a few chats does not load OpenSSL and a build that reads every store does.
OWN_SHA256_BYTES = 8 << 20
_hashed = [0]


def sha256_hex(data: bytes) -> str:
    """The sha256 of ``data`` in hex (a chat store's blob id), the same digest whichever module computes it."""
    _hashed[0] += len(data)
    if _hashed[0] <= OWN_SHA256_BYTES:
        return _own("sha256")(data).hexdigest()
    import hashlib

    return hashlib.sha256(data).hexdigest()


def folder_md5(folder: str) -> str:
    """The md5 cursor-agent names a folder's ``chats/<md5>`` bucket after (any string, unpaired surrogates too)."""
    return _own("md5")(folder.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()
