"""Opening one file of a folder for reading, safely.

Only a regular file is read. The file is opened without following a symbolic link and without blocking (a
FIFO opened for reading would otherwise wait for a writer forever), then checked again on the open handle: a
regular file, and, when the caller vetted it earlier, still the same file (device and inode), so a path swapped
for a link or another file between the check and the read is refused instead of read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from engine.documents.names import safe_name
from engine.errors import DocumentError

READ_STEP = 1 << 20
Identity = tuple[int, int]
"""(device, inode): the file itself, whatever path leads to it."""
_KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a folder"}
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))


def kind_of(mode: int) -> str | None:
    """What a file that is not a regular file is ("a FIFO (named pipe)", "a folder"...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return _KINDS.get(stat.S_IFMT(mode), "a special file")


def identity_of(info: os.stat_result) -> Identity:
    return info.st_dev, info.st_ino


def inside(path: str, folder: str) -> bool:
    """Whether real path ``path`` is ``folder`` or lies under it (both already resolved)."""
    return path == folder or os.path.commonpath([path, folder]) == folder


@contextmanager
def open_regular(path: Path, what: str, identity: Identity | None = None) -> Iterator[tuple[BinaryIO, int]]:
    """``(handle, size)`` of regular file ``path``, or DocumentError naming ``what`` ("The file", "Sidecar x")."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise DocumentError(f"{what} does not exist; check the path.") from None
    except OSError as exc:
        raise DocumentError(f"{what} cannot be read ({exc.strerror}); check its permissions.") from None
    kind = kind_of(info.st_mode)
    if kind == "a symbolic link":
        raise DocumentError(f"{what} is a symbolic link, which is not followed here; name the file it points to, "
                            "or copy the file in.")
    if kind is not None:
        raise DocumentError(f"{what} is {kind}, not a regular file; only regular files are read.")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise DocumentError(f"{what} cannot be read ({exc.strerror}); check its permissions.") from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or identity not in (None, identity_of(opened)):
            raise DocumentError(f"{what} was replaced by another file while the ingest ran; ingest it again.")
        yield handle, opened.st_size


def read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of ``handle`` (one past the limit shows the file is over it)."""
    data = bytearray()
    while len(data) <= limit:
        piece = handle.read(min(READ_STEP, limit + 1 - len(data)))
        if not piece:
            break
        data += piece
    return bytes(data)


def too_large(size: int, max_mb: float) -> DocumentError:
    return DocumentError(f"The file is {size / 1_048_576:.1f} MB, over the {max_mb:g} MB limit; split it or raise "
                         "WORKBENCH_MAX_FILE_MB.")


def read_regular(path: Path, max_mb: float, identity: Identity | None = None) -> bytes:
    """The bytes of regular file ``path`` (see :func:`open_regular`), or DocumentError when it is over ``max_mb``
    (checked on its size, then again on what was read: a file may grow while it is read)."""
    limit = int(max_mb * 1_048_576)
    with open_regular(path, f"{safe_name(path.name)}", identity) as (handle, size):
        if size > limit:
            raise too_large(size, max_mb)
        try:
            data = read_at_most(handle, limit)
        except OSError as exc:
            raise DocumentError(f"The file cannot be read ({exc.strerror}); check its permissions.") from None
    if len(data) > limit:
        raise too_large(len(data), max_mb)
    return data
