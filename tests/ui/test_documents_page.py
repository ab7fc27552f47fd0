"""Documents page: upload with per-file outcomes, the filtered document table, delete after confirmation."""

from __future__ import annotations

from datetime import date

import pytest

from engine.config import load_settings
from engine.store import KnowledgeBaseStore
from tests import helpers
from tests.ui.conftest import open_page

pytestmark = pytest.mark.integration
REV10 = "A320 AMM 32-41-11 Main Landing Gear Wheel - Removal/Installation (Rev 10)"


def _frames(at, column: str):
    """Dataframes on the page that have ``column`` (plain st.dataframe elements carry no key)."""
    return [d.value for d in at.dataframe if column in d.value.columns]


def _table(at):
    return _frames(at, "knowledge_base")[0]


def _documents(app):
    at = open_page(app, "documents")
    assert not at.exception
    return at


def test_lists_documents_and_corpus_charts(app):
    at = _documents(app)
    frame = _table(at)
    assert set(frame["knowledge_base"]) == {"manuals", "faq"}
    assert REV10 in set(frame["title"])
    assert len(at.get("plotly_chart")) == 3


def test_filters_narrow_the_table(app):
    at = _documents(app)
    at.multiselect(key="documents.f_kb").set_value(["faq"]).run()
    assert set(_table(at)["knowledge_base"]) == {"faq"}
    at.multiselect(key="documents.f_kb").set_value([]).run()
    at.text_input(key="documents.f_title").set_value("rev 10").run()
    assert list(_table(at)["title"]) == [REV10]
    at.text_input(key="documents.f_title").set_value("").run()
    at.slider(key="documents.f_auth").set_value((5, 5)).run()
    assert set(_table(at)["authority"]) == {5}
    at.slider(key="documents.f_auth").set_value((1, 5)).run()
    at.date_input(key="documents.f_dates").set_value((date(2024, 1, 1), date(2024, 12, 31))).run()
    assert all(str(d).startswith("2024") for d in _table(at)["update_date"])


def test_upload_shows_each_outcome_and_the_new_document(app):
    at = _documents(app)
    at.file_uploader(key="documents.files").set_value([
        ("tyres.md", b"# Tyre pressure\n\nCheck tyre pressure daily with cold tyres.", "text/markdown"),
        ("brake-wear.md", helpers.SAMPLE_MD.encode(), "text/markdown"),
        ("fake.pdf", b"this is not a pdf", "application/pdf"),
    ])
    at.selectbox(key="documents.kb").set_value("manuals")
    at.selectbox(key="documents.authority").set_value(4)
    at.button(key="documents.submit").click().run()
    assert not at.exception
    outcome = _frames(at, "outcome")[0]
    by_file = dict(zip(outcome["file"], outcome["outcome"]))
    assert by_file["tyres.md"].endswith("added") and by_file["brake-wear.md"].endswith("added")
    assert by_file["fake.pdf"].endswith("rejected")
    assert "real PDF" in outcome.loc[outcome["file"] == "fake.pdf", "reason"].item()
    said = [e.value.replace("\\", "") for e in at.error]  # a rejection's reason is also said in full above the table
    assert len(said) == 1 and said[0].startswith("fake.pdf was not indexed:") and "real PDF" in said[0]
    assert [p.value for p in at.progress] == [100, 100, 100, 100]  # overall, then one bar per file, all finished
    assert at.progress[0].proto.text.startswith("Overall: 3 of 3 files done")
    frame = _table(at)
    row = frame[frame["title"] == "Tyre pressure"]
    assert list(row["knowledge_base"]) == ["manuals"] and list(row["authority"]) == [4]

    at.button(key="documents.submit").click().run()  # the same files again
    outcome = _frames(at, "outcome")[0]
    assert dict(zip(outcome["file"], outcome["outcome"]))["tyres.md"].endswith("unchanged")


def test_upload_metadata_is_stored_for_each_file_unless_its_sidecar_says_otherwise(app, ui_data_dir):
    at = _documents(app)
    at.selectbox(key="documents.kb").set_value(at.selectbox(key="documents.kb").options[-1]).run()
    at.file_uploader(key="documents.files").set_value([
        ("parks-2024.txt", b"The parks department budget is 4.8 million.", "text/plain"),
        ("library-2024.txt", b"Library funding is 3.1 million.", "text/plain"),
        ("library-2024.txt.meta.yaml", b"authority: 2\nrevision: Draft 1\n", "application/x-yaml"),
    ])
    at.text_input(key="documents.new_kb").set_value("council")
    at.date_input(key="documents.update_date").set_value(date(2024, 3, 5))
    at.selectbox(key="documents.authority").set_value(4)
    at.text_input(key="documents.doc_type").set_value("budget_report")
    at.text_input(key="documents.series").set_value("council-budget")
    at.text_input(key="documents.revision").set_value("2024 final")
    at.button(key="documents.submit").click().run()
    assert not at.exception
    outcome = _frames(at, "outcome")[0]
    assert dict(zip(outcome["file"], outcome["outcome"])) == {"parks-2024.txt": "✅ added",
                                                             "library-2024.txt": "✅ added"}
    assert [p.value for p in at.progress] == [100, 100, 100]  # overall and one bar per document (not the sidecar)
    docs = {d.file_name: d for d in KnowledgeBaseStore(load_settings(data_dir=ui_data_dir)).list_documents("council")}
    parks, library = docs["parks-2024.txt"], docs["library-2024.txt"]
    assert (parks.update_date, parks.authority, parks.doc_type, parks.series, parks.revision) == (
        "2024-03-05", 4, "budget_report", "council-budget", "2024 final")
    assert (library.update_date, library.authority, library.doc_type, library.series, library.revision) == (
        "2024-03-05", 2, "budget_report", "council-budget", "Draft 1")


def test_a_bad_metadata_value_is_an_error_that_says_what_to_write(app, ui_data_dir):
    at = _documents(app)
    at.file_uploader(key="documents.files").set_value(("note.txt", b"A note.", "text/plain"))
    at.selectbox(key="documents.kb").set_value("faq")
    at.text_input(key="documents.revision").set_value("Rev " + "9" * 400)
    at.button(key="documents.submit").click().run()
    assert not at.exception
    errors = " ".join(e.value for e in at.main.error)
    assert "Nothing was indexed" in errors and "at most 300 characters" in errors and "Rev 12" in errors
    assert "note.txt" not in {d.file_name for d in
                              KnowledgeBaseStore(load_settings(data_dir=ui_data_dir)).list_documents("faq")}


def test_several_documents_are_deleted_after_one_confirmation(app, ui_data_dir):
    at = _documents(app)
    picker = at.multiselect(key="documents.delete_choice")
    faq = [o for o in picker.options if "· faq/" in o]
    assert len(faq) == 2
    picker.set_value(faq).run()
    at.button(key="documents.delete").click().run()
    assert at.button(key="documents.confirm_delete").label == "Delete 2"
    at.button(key="documents.confirm_delete").click().run()
    assert not at.exception
    assert "faq" not in set(_table(at)["knowledge_base"])
    assert any("Deleted 2 documents" in s.value for s in at.success)
    assert not KnowledgeBaseStore(load_settings(data_dir=ui_data_dir)).list_documents("faq")


def test_all_shown_picks_every_filtered_document(app):
    at = _documents(app)
    at.multiselect(key="documents.f_kb").set_value(["faq"]).run()
    at.button(key="documents.delete_all_shown").click().run()
    assert len(at.multiselect(key="documents.delete_choice").value) == 2


def test_a_document_without_a_date_reads_date_unknown(app):
    at = _documents(app)
    at.file_uploader(key="documents.files").set_value(("undated.txt", b"Hangar note: chock the wheels.", "text/plain"))
    at.selectbox(key="documents.kb").set_value("faq")
    at.button(key="documents.submit").click().run()
    frame = _table(at)
    row = frame[frame["file_name"] == "undated.txt"]
    assert list(row["update_date"]) == ["date unknown"]
    assert "None" not in set(frame["update_date"].astype(str))


def test_the_new_base_name_box_is_offered_only_for_a_new_base(app, ui_data_dir):
    at = _documents(app)
    at.selectbox(key="documents.kb").set_value("faq").run()
    assert "documents.new_kb" not in [t.key for t in at.text_input]  # no box to type a name that would be ignored
    at.selectbox(key="documents.kb").set_value(at.selectbox(key="documents.kb").options[-1]).run()
    at.text_input(key="documents.new_kb").set_value("typed-base")
    at.file_uploader(key="documents.files").set_value(("note.txt", b"Hangar note: chock the wheels.", "text/plain"))
    at.button(key="documents.submit").click().run()
    store = KnowledgeBaseStore(load_settings(data_dir=ui_data_dir))
    assert [d.file_name for d in store.list_documents("typed-base")] == ["note.txt"]
    assert "note.txt" not in {d.file_name for d in store.list_documents("faq")}


def test_upload_into_a_new_base(app):
    at = _documents(app)
    at.selectbox(key="documents.kb").set_value(at.selectbox(key="documents.kb").options[-1]).run()
    at.file_uploader(key="documents.files").set_value(("note.txt", b"Hangar note: chock the wheels.", "text/plain"))
    at.text_input(key="documents.new_kb").set_value("shop-notes")
    at.button(key="documents.submit").click().run()
    assert "shop-notes" in set(_table(at)["knowledge_base"])
    at = at.switch_page("views/ask.py").run()
    assert "shop-notes" in at.multiselect(key="ask.kbs").options


def test_a_file_twice_in_one_upload_finishes_both_bars(app):
    at = _documents(app)
    note = ("note.txt", b"Hangar note: chock the wheels.", "text/plain")
    at.file_uploader(key="documents.files").set_value([note, note])
    at.selectbox(key="documents.kb").set_value("faq")
    at.button(key="documents.submit").click().run()
    assert not at.exception
    assert [p.value for p in at.progress] == [100, 100, 100]
    assert [p.proto.text for p in at.progress[1:]] == ["note.txt: ✅ added", "note.txt: ⛔ rejected"]


def test_invalid_base_name_is_an_error_not_a_crash(app):
    at = _documents(app)
    at.selectbox(key="documents.kb").set_value(at.selectbox(key="documents.kb").options[-1]).run()
    at.file_uploader(key="documents.files").set_value(("note.txt", b"text", "text/plain"))
    at.text_input(key="documents.new_kb").set_value("Bad Name!")
    at.button(key="documents.submit").click().run()
    assert not at.exception
    assert any("Invalid knowledge base name" in e.value for e in at.main.error)


def test_delete_needs_confirmation(app, ui_data_dir):
    at = _documents(app)
    label = next(o for o in at.multiselect(key="documents.delete_choice").options if "(Rev 10)" in o)
    at.multiselect(key="documents.delete_choice").set_value([label]).run()
    at.button(key="documents.delete").click().run()
    assert at.button(key="documents.confirm_delete")  # the dialog asks first
    assert REV10 in set(_table(at)["title"])
    at.button(key="documents.cancel_delete").click().run()
    assert REV10 in set(_table(at)["title"])

    at.multiselect(key="documents.delete_choice").set_value([label]).run()
    at.button(key="documents.delete").click().run()
    at.button(key="documents.confirm_delete").click().run()
    assert not at.exception
    assert REV10 not in set(_table(at)["title"])
    assert any("Deleted" in s.value for s in at.success)
    store = KnowledgeBaseStore(load_settings(data_dir=ui_data_dir))
    assert REV10 not in {d.title for d in store.list_documents("manuals")}


def _rendered_text(at) -> tuple[list[str], list[str]]:
    """(text of elements that render Markdown, including progress labels; dataframe cells as text)."""
    markdown = [e.value for e in [*at.markdown, *at.caption, *at.success, *at.warning, *at.error]]
    markdown += [p.proto.text for p in at.progress]
    cells = [" ".join(map(str, d.value.astype(str).to_numpy().ravel())) for d in at.dataframe]
    return markdown, cells


def test_untrusted_titles_render_inert(app):
    at = _documents(app)
    evil = b"# ![pwn](http://example.com/x.png) [click](http://example.com) <img src=x>\n\nBody text."
    at.file_uploader(key="documents.files").set_value(("[evil](http://example.com).md", evil, "text/markdown"))
    at.selectbox(key="documents.kb").set_value("faq")
    at.button(key="documents.submit").click().run()
    assert not at.exception and len(at.progress) == 2
    label = next(o for o in at.multiselect(key="documents.delete_choice").options if "pwn" in o)
    markdown, cells = _rendered_text(at)
    at.multiselect(key="documents.delete_choice").set_value([label]).run()
    at.button(key="documents.delete").click().run()  # the confirmation dialog shows the title
    more_markdown, more_cells = _rendered_text(at)
    markdown, cells = markdown + more_markdown, cells + more_cells
    assert any("pwn" in text for text in markdown) and any("pwn" in text for text in cells)
    assert not any("](http" in t or "<img" in t or "http://" in t for t in markdown)  # no image, link or tag
    assert not any("](http" in t or "http://" in t for t in cells)  # cells show no Markdown, and no URL either


def test_upload_form_offers_keep_both_for_a_file_name_already_stored(app):
    at = _documents(app)
    first = ("tyres.md", b"# Tyre pressure\n\nCheck tyre pressure daily with cold tyres.", "text/markdown")
    second = ("tyres.md", b"# Tyre pressure\n\nCheck tyre pressure weekly, and after every hard landing.",
              "text/markdown")
    at.file_uploader(key="documents.files").set_value([first])
    at.selectbox(key="documents.kb").set_value("manuals")
    at.button(key="documents.submit").click().run()
    at.file_uploader(key="documents.files").set_value([second])
    at.radio(key="documents.on_conflict").set_value("keep-both")
    at.button(key="documents.submit").click().run()
    assert not at.exception
    outcome = _frames(at, "outcome")[0]
    row = outcome[outcome["file"] == "tyres.md"].iloc[0]
    assert row["outcome"].endswith("added") and row["title"] == "Tyre pressure (2)"
    assert row["reason"].startswith('Kept beside "Tyre pressure"')
    assert {"Tyre pressure", "Tyre pressure (2)"} <= set(_table(at)["title"])

    at.file_uploader(key="documents.files").set_value([("tyres.md", b"# Tyre pressure\n\nA third text.",
                                                         "text/markdown")])
    at.radio(key="documents.on_conflict").set_value("skip")
    at.button(key="documents.submit").click().run()
    outcome = _frames(at, "outcome")[0]
    assert outcome[outcome["file"] == "tyres.md"].iloc[0]["outcome"].endswith("skipped")


def test_a_document_title_can_be_edited_and_search_shows_it(app, ui_data_dir):
    at = _documents(app)
    label = next(o for o in at.selectbox(key="documents.title_choice").options if "(Rev 10)" in o)
    at.selectbox(key="documents.title_choice").set_value(label).run()
    assert at.text_input(key="documents.title_text").value == REV10  # starts from the current title
    at.text_input(key="documents.title_text").set_value("A320 MLG wheel, superseded Rev 10").run()
    at.button(key="documents.title_save").click().run()
    assert not at.exception
    assert "A320 MLG wheel, superseded Rev 10" in set(_table(at)["title"]) and REV10 not in set(_table(at)["title"])
    assert any("Retitled" in s.value for s in at.success)
    store = KnowledgeBaseStore(load_settings(data_dir=ui_data_dir))
    hits = store.search("superseded Rev 10", "manuals", mode="keyword", k=3)
    assert hits and hits[0].title == "A320 MLG wheel, superseded Rev 10"
