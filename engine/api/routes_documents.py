"""Documents: upload (multipart, per-file outcomes as on the Documents page), list, retitle, delete."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Path, Query, Request, UploadFile

from engine.api.auth import Caller, Engine, Writer
from engine.api.errors import NotFound, TooLarge
from engine.api.schemas import DocId, KbName, TitleUpdate
from engine.errors import KnowledgeBaseError
from engine.store.conflicts import OnConflict

router = APIRouter(tags=["documents"])
OneLine = Annotated[str | None, Form(max_length=200, pattern=r"^[^\r\n]*$")]


def _limit(request: Request) -> int:
    return int(request.app.state.services.settings.api_max_upload_mb * 1024 * 1024)


def _check_length(request: Request) -> None:
    """413 before the body is read when the declared length is over the limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > _limit(request):
        raise TooLarge(f"The upload is {int(declared) / 1_048_576:.1f} MB, over the "
                       f"{request.app.state.services.settings.api_max_upload_mb:g} MB limit of one request; send "
                       "fewer files per request (or raise WORKBENCH_API_MAX_UPLOAD_MB).")


@router.post("/v1/documents", summary="Upload files into a knowledge base")
async def upload(
    request: Request, engine: Engine, identity: Writer,
    knowledge_base: Annotated[KbName, Form(description="target base (created when missing)")],
    files: Annotated[list[UploadFile], File(description="documents (PDF, DOCX, MD, HTML, TXT, CSV) and optional "
                                                        "NAME.meta.yaml / NAME.meta.json sidecars")],
    update_date: Annotated[date | None, Form(description="YYYY-MM-DD for every file")] = None,
    authority: Annotated[int | None, Form(ge=1, le=5, description="1 (low) to 5 (high) for every file")] = None,
    doc_type: OneLine = None, series: OneLine = None, revision: OneLine = None, title: OneLine = None,
    on_conflict: Annotated[OnConflict, Form(description="a file name the base already holds: replace that document "
                                                        "(default), keep-both (this one is stored beside it as "
                                                        "'TITLE (2)' under a new id), or skip this file")] = "replace",
) -> dict[str, Any]:
    """Each file gets an outcome (added, unchanged, replaced with what it replaced, skipped, rejected with the
    reason), as on the Documents page; a rejected file writes nothing and the rest proceed. Needs the analyst or
    admin role and a write grant."""
    _check_length(request)
    identity.require_write(knowledge_base)
    if not files:
        raise KnowledgeBaseError("Attach at least one file as the multipart field 'files'.")
    loaded: list[tuple[str, bytes]] = []
    total = 0
    for n, item in enumerate(files, start=1):
        data = await item.read()
        total += len(data)
        if total > _limit(request):
            raise TooLarge("The files together are over the limit of one request; send fewer per request.")
        name = (item.filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip() or f"upload-{n}"
        loaded.append((name, data))
    metadata = {k: v for k, v in {"update_date": update_date.isoformat() if update_date else None,
                                  "authority": authority, "doc_type": doc_type, "series": series,
                                  "revision": revision, "title": title}.items() if v not in (None, "")}
    from starlette.concurrency import run_in_threadpool

    report = await run_in_threadpool(engine.ingestor_for(identity).ingest_bytes, loaded, knowledge_base, metadata,
                                     on_conflict=on_conflict)
    return report.to_dict()


@router.get("/v1/documents", summary="List knowledge bases and their documents")
def list_documents(engine: Engine, identity: Caller,
                   kb: Annotated[KbName | None, Query(description="only this base")] = None) -> dict[str, Any]:
    """The bases you may read, each with its documents (id, title, date, authority, type, chunks)."""
    store = engine.store_for(identity)
    names = store.knowledge_base_names()
    if kb is not None:
        if kb not in names:
            raise NotFound(f"Knowledge base {kb!r} does not exist or you have no read grant for it; yours: "
                           f"{', '.join(names) or 'none'}.")
        names = [kb]
    infos = {i.name: i.to_dict() for i in store.list_knowledge_bases()}
    return {"knowledge_bases": [{**infos.get(name, {"name": name}),
                                 "documents": [d.to_dict() for d in store.list_documents(name)]} for name in names]}


@router.patch("/v1/documents/{kb}/{doc_id}", summary="Set a document's title")
def set_title(engine: Engine, identity: Writer, kb: Annotated[KbName, Path()], doc_id: Annotated[DocId, Path()],
              body: TitleUpdate) -> dict[str, Any]:
    """Gives the document the title you choose, in the document list and on every chunk (search results and
    citations show it). Needs the analyst or admin role and a write grant for the base."""
    store = engine.store_for(identity)
    if not store.exists(kb):
        raise NotFound(f"Knowledge base {kb!r} does not exist or you have no read grant for it.")
    identity.require_write(kb)
    try:
        info = store.set_title(doc_id, kb, body.title)
    except KnowledgeBaseError as exc:
        if "is not in" in str(exc):
            raise NotFound(str(exc)) from None
        raise
    return {"ok": True, "knowledge_base": kb, **info.to_dict()}


@router.delete("/v1/documents/{kb}/{doc_id}", summary="Delete a document and its chunks")
def delete_document(engine: Engine, identity: Writer, kb: Annotated[KbName, Path()],
                    doc_id: Annotated[DocId, Path()]) -> dict[str, Any]:
    """Removes every chunk of the document. Needs the analyst or admin role and a write grant for the base."""
    store = engine.store_for(identity)
    if not store.exists(kb):
        raise NotFound(f"Knowledge base {kb!r} does not exist or you have no read grant for it.")
    identity.require_write(kb)
    try:
        removed = store.delete_document(doc_id, kb)
    except KnowledgeBaseError as exc:
        raise NotFound(str(exc)) from None
    return {"ok": True, "knowledge_base": kb, "doc_id": doc_id, "chunks_deleted": removed}
