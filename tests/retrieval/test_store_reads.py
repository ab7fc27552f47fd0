"""The thread pool that reads titles and sentence vectors beside an ask's searches survives a fork."""

from __future__ import annotations

import os

import pytest

from engine.retrieval import retriever


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_gets_its_own_reader_threads():
    assert retriever._READER.submit(lambda: 1).result(timeout=10) == 1  # the parent's threads are running
    pid = os.fork()
    if pid == 0:  # the child: its copy of the parent's pool has no threads behind it
        try:
            code = 0 if retriever._READER.submit(lambda: 7).result(timeout=10) == 7 else 1
        except BaseException:  # noqa: BLE001 - any failure is the child's exit code
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
