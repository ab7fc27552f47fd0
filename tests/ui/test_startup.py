"""With WORKBENCH_BOOTSTRAP_DIR (make run), the first page is drawn at once while the sample documents are indexed
in the background, with their progress on the page; the bases appear once indexed."""

from __future__ import annotations

import pytest

from tests.test_bootstrap import sample_folder
from tests.ui.conftest import APP_TIMEOUT, ROOT, reset_engine_caches

pytestmark = pytest.mark.integration


@pytest.fixture()
def fresh_app(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("WORKBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("WORKBENCH_BOOTSTRAP_DIR", str(sample_folder(tmp_path / "sample", sections=400)))
    reset_engine_caches()
    yield lambda: AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    from components.factories import get_workbench

    get_workbench().bootstrap().wait(300)  # let the thread finish before the folder goes
    reset_engine_caches()


def test_the_first_page_is_drawn_while_the_samples_are_indexed(fresh_app):
    at = fresh_app().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Ask"]
    bars = [p.proto.text for p in at.progress]
    assert bars and any(w in bars[0] for w in ("Starting", "embedding model", "Indexing the sample documents")), bars
    from components.factories import get_warmup, get_workbench

    assert get_workbench().bootstrap().wait(300) and get_warmup().wait(300)
    at = fresh_app().run()  # a new visit (AppTest's own reruns only rerun the loading line's fragment)
    assert not at.exception and not at.progress  # done: no bar any more
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert "manuals" in sidebar and "notes" in sidebar
