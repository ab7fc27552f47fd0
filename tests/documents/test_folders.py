"""Folder walks never leave the folder given; only regular files are read, and only the file the walk found.

Real files, links, FIFOs and sockets in ``tmp_path``; no store, no model.
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from engine.documents.files import read_regular
from engine.documents.folders import walk_paths
from engine.documents.metadata import read_sidecar
from engine.errors import DocumentError

pytestmark = pytest.mark.unit
SECRET = b"root:x:0:0:root:/root:/bin/bash\n"


@pytest.fixture()
def tree(tmp_path):
    """F/ with a document, a subfolder, and a secret file and folder outside it."""
    outside = tmp_path / "outside"
    (outside / "private").mkdir(parents=True)
    (outside / "passwd").write_bytes(SECRET)
    (outside / "private" / "keys.txt").write_bytes(SECRET)
    folder = tmp_path / "F"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("# A\n\nBrake pin check.")
    (folder / "sub" / "b.txt").write_text("Shop note.")
    return folder, outside


def walked(paths, follow_links=False):
    found, skipped = walk_paths(paths, follow_links)
    return {f.path.name: f for f in found}, {s.path.name: s.reason for s in skipped}


def test_links_out_of_the_folder_are_never_followed(tree):
    folder, outside = tree
    (folder / "passwd-link.txt").symlink_to(outside / "passwd")
    (folder / "private").symlink_to(outside / "private")
    (folder / "sub" / "up.txt").symlink_to("../../outside/passwd")  # relative, through a subfolder
    for follow in (False, True):
        found, skipped = walked([folder], follow)
        assert set(found) == {"a.md", "b.txt"}, follow
        for name in ("passwd-link.txt", "private", "up.txt"):
            assert "Symbolic link" in skipped[name] and "not followed" in skipped[name], (follow, name)
        if follow:
            assert "outside the folder being ingested" in skipped["passwd-link.txt"]
            assert "outside the folder being ingested" in skipped["private"]


def test_follow_links_follows_links_that_stay_inside_and_reads_each_file_once(tree):
    folder, _ = tree
    (folder / "latest.md").symlink_to("a.md")
    (folder / "notes").symlink_to("sub")  # a folder link inside
    (folder / "sub" / "loop").symlink_to("..")  # back to F: walked once
    (folder / "copy-of-b.txt").symlink_to("sub/b.txt")
    (folder / "moved").mkdir()
    (folder / "moved" / "c.md").write_text("# C\n\nOnly reachable here.")
    (folder / "c-link.md").symlink_to("moved/c.md")

    found, skipped = walked([folder])
    assert set(found) == {"a.md", "b.txt", "c.md"}
    assert all("not followed" in skipped[n] for n in ("latest.md", "notes", "loop", "copy-of-b.txt", "c-link.md"))

    found, skipped = walked([folder], follow_links=True)
    assert set(found) == {"a.md", "b.txt", "c.md"}, "each file once, where it is"
    assert all(not f.via_link for f in found.values())
    assert "The same file as" in skipped["latest.md"] and "a.md" in skipped["latest.md"]
    assert "The same file as" in skipped["copy-of-b.txt"] and "The same file as" in skipped["c-link.md"]
    assert "already read" in skipped["loop"]
    assert "notes" not in skipped or "already read" in skipped["notes"]


def test_a_followed_link_to_a_file_only_reachable_through_it_is_read_under_the_links_name(tree):
    folder, _ = tree
    hidden = folder / ".store"
    hidden.mkdir()
    (hidden / "v3.md").write_text("# V3\n\nThird version.")
    (folder / "current.md").symlink_to(".store/v3.md")
    found, skipped = walked([folder], follow_links=True)
    assert "current.md" in found and found["current.md"].target == (hidden / "v3.md").resolve()
    assert read_regular(found["current.md"].target, 1, found["current.md"].identity) == b"# V3\n\nThird version."
    assert "Hidden folder" in skipped[".store"]


def test_paths_named_on_their_own_that_are_links_are_links_of_their_folder(tree):
    folder, outside = tree
    (folder / "passwd-link.txt").symlink_to(outside / "passwd")
    (folder / "private").symlink_to(outside / "private")
    (folder / "latest.md").symlink_to("a.md")
    found, skipped = walked([folder / "passwd-link.txt", folder / "private", folder / "latest.md"], True)
    assert set(found) == {"latest.md"}, "a link named on its own is followed only inside its folder"
    assert "outside" in skipped["passwd-link.txt"] and "outside" in skipped["private"]
    found, _ = walked([str(folder / "private") + "/"])  # PATH/: the folder the link names, as the shell reads it
    assert set(found) == {"keys.txt"}


def test_fifos_sockets_and_devices_are_skipped_with_a_reason_and_never_opened(tree):
    folder, _ = tree
    os.mkfifo(folder / "pipe.txt")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(folder / "sock.md"))
    except OSError as exc:  # a path too long for AF_UNIX on this system
        pytest.skip(f"cannot bind a unix socket here: {exc}")
    (folder / "null.txt").symlink_to("/dev/null")
    started = time.monotonic()
    found, skipped = walked([folder, "/dev/zero"], follow_links=True)
    assert time.monotonic() - started < 5
    assert set(found) == {"a.md", "b.txt"}
    assert skipped["pipe.txt"].startswith("A FIFO (named pipe), not a regular file")
    assert skipped["sock.md"].startswith("A socket, not a regular file")
    assert "outside the folder" in skipped["null.txt"]
    assert skipped["zero"].startswith("A character device, not a regular file")
    server.close()


def test_reading_refuses_what_the_walk_did_not_find(tree):
    folder, outside = tree
    found, _ = walked([folder])
    a = found["a.md"]
    os.link(folder / "a.md", outside / "held")  # the file found stays allocated, so no new file reuses its inode
    (folder / "a.md").unlink()
    (folder / "a.md").symlink_to(outside / "passwd")  # swapped for a link after the walk
    with pytest.raises(DocumentError, match="symbolic link"):
        read_regular(a.target, 50, a.identity)
    (folder / "a.md").unlink()
    (folder / "a.md").write_bytes(SECRET)  # swapped for another file
    with pytest.raises(DocumentError, match="replaced by another file"):
        read_regular(a.target, 50, a.identity)
    os.mkfifo(folder / "later.txt")
    done = threading.Event()

    def read_fifo():
        with pytest.raises(DocumentError, match="FIFO"):
            read_regular(folder / "later.txt", 50)
        done.set()

    threading.Thread(target=read_fifo, daemon=True).start()
    assert done.wait(5), "reading a FIFO blocked"


def test_a_file_growing_past_the_limit_while_read_is_refused(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 2_000_000)
    with pytest.raises(DocumentError, match=r"over the 1 MB limit.*WORKBENCH_MAX_FILE_MB"):
        read_regular(path, 1)


def test_sidecars_follow_the_same_rules(tree):
    folder, outside = tree
    (outside / "meta.yaml").write_text("title: Secret title\nauthority: 5\n")
    (folder / "a.md.meta.yaml").symlink_to(outside / "meta.yaml")
    for follow in (False, True):
        with pytest.raises(DocumentError, match="Sidecar a.md.meta.yaml is a symbolic link"):
            read_sidecar(folder / "a.md", root=str(folder.resolve()), follow_links=follow)
    (folder / "a.md.meta.yaml").unlink()
    (folder / "meta" ).mkdir()
    (folder / "meta" / "a.yaml").write_text("title: Inside title\n")
    (folder / "a.md.meta.yaml").symlink_to("meta/a.yaml")
    assert read_sidecar(folder / "a.md", root=str(folder.resolve()), follow_links=True) == {"title": "Inside title"}
    (folder / "a.md.meta.yaml").unlink()
    os.mkfifo(folder / "a.md.meta.yaml")
    with pytest.raises(DocumentError, match="FIFO"):
        read_sidecar(folder / "a.md")
