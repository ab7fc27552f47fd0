"""Builders for hostile files: decompression bombs, huge fields, pathological text and metadata.

Each builder takes the size that matters, so a test can build a small file against lowered limits
and the measurement script (measure_parse_limits.py) can build the full-size one.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib

from tests import helpers

MB = 1024 * 1024
_STEP = 4 * MB


def _stream_member(archive: zipfile.ZipFile, name: str, head: bytes, fill: bytes, size: int, tail: bytes) -> None:
    """Write member ``name`` as head + ``fill`` repeated to ``size`` bytes + tail, deflated, without holding it."""
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    block = fill * (_STEP // len(fill))
    with archive.open(info, "w", force_zip64=True) as out:
        out.write(head)
        left = size
        while left > 0:
            piece = block[:left]
            out.write(piece)
            left -= len(piece)
        out.write(tail)


def _docx_with(replace: dict[str, bytes] | None = None, extra: tuple[str, int] | None = None,
               inflate_body: int = 0) -> bytes:
    """A real DOCX, with members replaced, one extra deflated part of ``extra[1]`` zero bytes, or ``inflate_body``
    bytes of whitespace inside word/document.xml."""
    source = zipfile.ZipFile(io.BytesIO(helpers.make_docx("Quarterly report", ["Revenue grew."])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for item in source.infolist():
            data = (replace or {}).get(item.filename, source.read(item.filename))
            if item.filename == "word/document.xml" and inflate_body:
                head, tail = data.split(b"<w:body>", 1)
                _stream_member(archive, item.filename, head + b"<w:body>", b" ", inflate_body, tail)
                continue
            archive.writestr(item.filename, data)
        if extra:
            _stream_member(archive, extra[0], b"", b"\0", extra[1], b"")
    return out.getvalue()


def docx_inflating(size: int) -> bytes:
    """A DOCX whose word/document.xml inflates to ``size`` bytes (whitespace inside the body)."""
    return _docx_with(inflate_body=size)


def docx_big_part(size: int) -> bytes:
    """A DOCX whose document relationships reference a media part of ``size`` zero bytes."""
    source = zipfile.ZipFile(io.BytesIO(helpers.make_docx("Quarterly report", ["Revenue grew."])))
    rels = source.read("word/_rels/document.xml.rels").replace(
        b"</Relationships>",
        b'<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"'
        b' Target="media/image1.png"/></Relationships>')
    return _docx_with({"word/_rels/document.xml.rels": rels}, extra=("word/media/image1.png", size))


def raw_pdf(content: bytes, flate: bool = True) -> bytes:
    """A one-page PDF whose page content stream is ``content`` (FlateDecode-compressed when ``flate``)."""
    stream = zlib.compress(content, 9) if flate else content
    filter_entry = b"/Filter /FlateDecode " if flate else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< " + filter_entry + b"/Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def pdf_flate_zeros(size: int) -> bytes:
    """A PDF whose content stream is ``size`` zero bytes, FlateDecode-compressed (about 1,000:1)."""
    return raw_pdf(b"\0" * size)


def pdf_text_operators(size: int) -> bytes:
    """A PDF whose one page holds about ``size`` bytes of show-text operators."""
    line = b"BT /F1 12 Tf 72 700 Td (Torque the axle nut to 150 lbf.ft.) Tj ET\n"
    return raw_pdf(line * (size // len(line)))


def csv_rows(rows: int) -> bytes:
    """A CSV with a header and ``rows`` records."""
    body = "".join(f"E{i},fault {i}\n" for i in range(rows))
    return ("code,meaning\n" + body).encode()


def csv_wide(columns: int, rows: int = 1) -> bytes:
    """A CSV of one header and ``rows`` records, ``columns`` wide (100,000 columns: about 1.2 MB)."""
    header = ",".join(f"reading_{i}" for i in range(columns))
    body = "".join(",".join(str((i * 7 + r) % 997) for i in range(columns)) + "\n" for r in range(rows))
    return (header + "\n" + body).encode()


def pdf_pages(pages: int, line: bytes = b"Tiny text: check the torque of bolt %d.") -> bytes:
    """A PDF of ``pages`` pages, each holding one short line in 2-point type (5,000 pages: about 1.5 MB)."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}

    def put(number: int, body: bytes) -> None:
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")

    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(pages))
    put(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    put(2, b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages)
    put(3, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i in range(pages):
        page = 4 + 2 * i
        content = b"BT /F1 2 Tf 72 700 Td (" + (line % i if b"%d" in line else line) + b") Tj ET"
        put(page, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                  b"/Resources << /Font << /F1 3 0 R >> >> >>" % (page + 1))
        put(page + 1, b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    total = 4 + 2 * pages
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % total)
    for number in range(1, total):
        out.write(b"%010d 00000 n \n" % offsets[number])
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (total, xref))
    return out.getvalue()


def xlsx_expanding(rows: int) -> bytes:
    """A ZIP laid out as an XLSX whose one sheet declares ``rows`` rows of cells, deflated (1,000:1)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        _stream_member(archive, "xl/worksheets/sheet1.xml", b"<worksheet><sheetData>",
                       b'<row><c t="inlineStr"><is><t>0</t></is></c></row>', rows * 48, b"</sheetData></worksheet>")
    return out.getvalue()


def csv_big_field(size: int) -> bytes:
    """A CSV with one quoted field of ``size`` characters."""
    return ("code,meaning\nE1,\"" + "x" * size + "\"\nE2,ok\n").encode()


def markdown_long_line(size: int) -> bytes:
    """Markdown whose body is one line of about ``size`` characters (words, no sentence ends)."""
    words = "torque the axle nut to the value in the table "
    return ("# Axle nut\n\n" + words * (size // len(words))).encode()


def text_no_spaces(size: int) -> bytes:
    """``size`` letters with no whitespace at all."""
    return b"a" * size


def yaml_bomb(levels: int = 9, width: int = 9) -> str:
    """A 'billion laughs' YAML mapping: ``width ** levels`` strings from a few hundred bytes through aliases."""
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    lines.append("title: Bomb")
    return "\n".join(lines) + "\n"


def markdown_with_front_matter(front: str, body: str = "# Note\n\nCheck the brake wear pin daily.\n") -> bytes:
    return f"---\n{front}---\n{body}".encode()


def json_nested(depth: int) -> str:
    """A JSON object whose one value is a list nested ``depth`` deep."""
    return '{"title": "Deep", "tags": ' + "[" * depth + "]" * depth + "}"


def sidecar_json(values: dict) -> str:
    return json.dumps(values)


_ESCAPES = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def has_control_chars(text: str | None) -> bool:
    return bool(text) and _ESCAPES.search(text) is not None
