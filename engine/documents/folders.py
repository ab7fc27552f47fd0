"""Which files of the paths given to an ingest may be read.

A folder walk never leaves the folder it was given. A symbolic link (to a file or a folder) is not followed
unless the caller asks (``follow_links``), and even then only when it resolves to a place inside that folder;
each link passed over is reported with the reason. Only regular files are read: a FIFO, a socket or a device is
reported, never opened (a FIFO would block the read, a device can be endless). A file reached twice (where it
is and through a link) is read once, where it is.

A path named on its own that is a link is a link in the folder it sits in: ``ingest F/*`` treats the links of F
as the walk of F would. ``PATH/`` with a trailing slash names the folder a link points to, as the shell does.
What the walk vetted is what gets read: each file found carries its (device, inode), which
:func:`engine.documents.files.read_regular` checks on the handle it reads.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.documents.files import Identity, identity_of, inside, kind_of
from engine.documents.metadata import is_sidecar
from engine.documents.names import safe_name

HIDDEN_FILE = ("Hidden file (its name starts with '.'): skipped. Rename it, or name it on the command line, to "
               "ingest it.")
HIDDEN_FOLDER = ("Hidden folder (its name starts with '.'): skipped with everything in it. Name it on the command "
                 "line to ingest it.")
LINK_NOT_FOLLOWED = ("Symbolic link: not followed. Copy the file in, name what it points to, or follow links that "
                     "stay inside the folder (--follow-links on the command line).")
LINK_OUTSIDE = ("Symbolic link to a place outside the folder being ingested: not followed, even with "
                "--follow-links. Copy the file into the folder to ingest it.")
LINK_BROKEN = "Symbolic link whose target is missing or loops back on itself: skipped. Fix or remove the link."
FOLDER_AGAIN = ("Symbolic link to a folder already read in this ingest (a loop, or a second way into one folder): "
                "not walked again.")
NOT_READ = "{kind}, not a regular file: skipped. Only regular files are read; copy the document into a file."


@dataclass(frozen=True)
class Found:
    """A regular file to ingest: ``path`` as found (its name is the document's name; a followed link's own path),
    ``target`` the file to read, ``identity`` that file's (device, inode) when found (None: not found at all,
    and reading it says so), ``root`` the real folder it was found in, where its sidecar must stay too."""

    path: Path
    target: Path
    identity: Identity | None
    root: str
    via_link: bool = False

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Skipped:
    """A path a folder walk passes over, and why."""

    path: Path
    reason: str
    folder: bool = False

    @property
    def shown(self) -> str:
        """The name a report shows (a folder's with a trailing slash)."""
        return self.path.name + ("/" if self.folder else "")


def _not_read(mode: int, prefix: str = "") -> str:
    kind = kind_of(mode) or "a special file"
    text = prefix + NOT_READ.format(kind=kind)
    return text[0].upper() + text[1:]


class _Walk:
    """One walk of the paths given to an ingest (see :func:`walk_paths`)."""

    def __init__(self, follow_links: bool) -> None:
        self.follow_links = follow_links
        self.found: list[Found] = []
        self.skipped: list[Skipped] = []
        self.folders: set[str] = set()  # real folders walked: a link loop is walked once
        self.links: list[tuple[Path, str]] = []  # links met, followed once the folders themselves are walked

    def named(self, raw: str | Path) -> None:
        self.path(raw)
        while self.links:  # after the real folders: a file or folder is found where it is before through a link
            path, root = self.links.pop(0)
            self.link(path, root)

    def path(self, raw: str | Path) -> None:
        path = Path(raw)
        parent = os.path.realpath(path.parent)
        try:
            info = path.lstat()
        except OSError:
            self.found.append(Found(path, path, None, parent))  # reading it says what is wrong
            return
        if stat.S_ISLNK(info.st_mode) and str(raw).endswith(("/", os.sep)) and os.path.isdir(path):
            real = os.path.realpath(path)
            self.walk(path, real, real, via_link=False)  # PATH/: the folder the link names is the folder given
        elif stat.S_ISLNK(info.st_mode):
            self.link(path, parent)
        elif stat.S_ISDIR(info.st_mode):
            real = os.path.realpath(path)
            self.walk(path, real, real, via_link=False)
        else:
            self.entry(path, info, parent)

    def walk(self, path: Path, real: str, root: str, via_link: bool) -> None:
        """The entries of folder ``path`` (real path ``real``) and below, inside the walk's ``root``."""
        if real in self.folders:
            return
        self.folders.add(real)
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as exc:
            self.skipped.append(Skipped(path, f"The folder cannot be read ({exc.strerror}); check its permissions.",
                                        folder=True))
            return
        for entry in entries:
            child = Path(path, entry.name)
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since it was listed
            if entry.name.startswith("."):
                folder = stat.S_ISDIR(info.st_mode)
                self.skipped.append(Skipped(child, HIDDEN_FOLDER if folder else HIDDEN_FILE, folder=folder))
            elif stat.S_ISLNK(info.st_mode):
                self.links.append((child, root))
            elif stat.S_ISDIR(info.st_mode):
                self.walk(child, os.path.join(real, entry.name), root, via_link)
            else:
                self.entry(child, info, root, via_link)

    def entry(self, path: Path, info: os.stat_result, root: str, via_link: bool = False) -> None:
        """A file that is not a link: a document, a sidecar (read with its document) or something not to read."""
        if not stat.S_ISREG(info.st_mode):
            self.skipped.append(Skipped(path, _not_read(info.st_mode)))
        elif not is_sidecar(path):
            self.found.append(Found(path, path, identity_of(info), root, via_link))

    def link(self, path: Path, root: str) -> None:
        """A symbolic link inside the folder whose real path is ``root``."""
        real = os.path.realpath(path)
        try:
            info = os.stat(real)
        except OSError:
            self.skipped.append(Skipped(path, LINK_BROKEN))
            return
        folder = stat.S_ISDIR(info.st_mode)
        if not self.follow_links:
            self.skipped.append(Skipped(path, LINK_NOT_FOLLOWED, folder=folder))
        elif not inside(real, root):
            self.skipped.append(Skipped(path, LINK_OUTSIDE, folder=folder))
        elif folder:
            if real in self.folders:
                self.skipped.append(Skipped(path, FOLDER_AGAIN, folder=True))
            else:
                self.walk(path, real, root, via_link=True)
        elif not stat.S_ISREG(info.st_mode):
            self.skipped.append(Skipped(path, _not_read(info.st_mode, "Symbolic link to ")))
        elif not is_sidecar(path):
            self.found.append(Found(path, Path(real), identity_of(info), root, via_link=True))

    def result(self) -> tuple[list[Found], list[Skipped]]:
        """The files to read, each file once (where it is rather than through a link), and what was skipped."""
        first: dict[Identity, Found] = {}
        for found in sorted(self.found, key=lambda f: (f.via_link, str(f.path))):
            if found.identity is not None:
                first.setdefault(found.identity, found)
        files = []
        for found in self.found:
            original = first.get(found.identity) if found.identity is not None else found
            if original is found:
                files.append(found)
            else:
                self.skipped.append(Skipped(found.path, f"The same file as {safe_name(str(original.path))}, "
                                                        "reached through a link: read once, there."))
        return files, sorted(self.skipped, key=lambda s: str(s.path))


def walk_paths(paths: Iterable[str | Path], follow_links: bool = False) -> tuple[list[Found], list[Skipped]]:
    """Files named, plus the files inside named folders (recursively; each folder's in name order).

    Sidecars are left to their documents. Skipped, each with its reason: hidden files and folders (names starting
    with '.'), symbolic links unless ``follow_links``, links that lead out of the folder given (always), and
    anything that is not a regular file. ``follow_links``: follow links whose target stays inside the folder
    given (for a path named on its own: the folder it sits in).
    """
    walk = _Walk(follow_links)
    for raw in paths:
        walk.named(raw)
    return walk.result()
