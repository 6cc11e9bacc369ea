"""Zip bombs dressed as DOCX and PPTX are refused before python-docx or python-pptx read them,
quickly and in little memory; honest files, damaged and encrypted ones keep their behaviour.

The bombs are generated here, streamed to disk in 1 MB chunks, once per test session. Time
and peak memory are measured in a child Python running the loader, against a child loading a
small valid file of the same type."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import docx
import pytest
from pptx import Presentation
from pptx.util import Inches

from ingestion.errors import (
    ArchiveTooLargeError,
    CorruptFileError,
    EncryptedFileError,
    FileTooLargeError,
)
from ingestion.loaders import loader_for
from ingestion.loaders.archive_limits import ArchiveLimits, check_archive
from ingestion.loaders.docx import load_docx
from ingestion.loaders.pptx import load_pptx

MB = 1024 * 1024
GIB = 1024 * MB
PLACEHOLDER = "PLACEHOLDER-TEXT"
MEMBER = {"docx": "word/document.xml", "pptx": "ppt/slides/slide1.xml"}

# One child imports the loaders (several seconds), then forks a grandchild per file, which
# resets its peak memory (VmHWM) to its current size, runs the loader and reports which error
# (if any), how long the loader took and how much the peak grew.
_CHILD = """
import json, os, sys, time
from pathlib import Path
from ingestion.errors import IngestError
from ingestion.loaders import loader_for

def status_kb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])

def measure(path, name):
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # VmHWM := VmRSS
    before = status_kb("VmRSS")
    start = time.perf_counter()
    try:
        loader_for(name)(path, name, False)
        outcome, message = "loaded", ""
    except IngestError as error:
        outcome, message = type(error).__name__, str(error)
    seconds = time.perf_counter() - start
    added_mb = (status_kb("VmHWM") - before) / 1024
    return {"outcome": outcome, "message": message, "seconds": seconds, "added_mb": added_mb}

for key, path, name in json.loads(sys.argv[1]):
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        os.write(writer, json.dumps(measure(Path(path), name)).encode())
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as pipe:
        result = json.loads(pipe.read())
    os.waitpid(pid, 0)
    print(json.dumps({"key": key, **result}))
"""


@dataclass(frozen=True)
class ChildRun:
    outcome: str
    message: str
    seconds: float
    added_mb: float  # how much the peak memory grew while the loader ran


def _run_children(cases: list[tuple[str, Path, str]]) -> dict[str, ChildRun]:
    """Each (key, path, file name) loaded in a fresh process; the results by key."""
    cases_json = json.dumps([(key, str(path), name) for key, path, name in cases])
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, cases_json],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    runs = {}
    for line in done.stdout.splitlines():
        result = json.loads(line)
        key = result.pop("key")
        runs[key] = ChildRun(**result)
    return runs


def _docx_template(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Limits", level=1)
    document.add_paragraph(PLACEHOLDER)
    document.save(str(path))
    return path


def _pptx_template(path: Path) -> Path:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(1))
    box.text_frame.text = PLACEHOLDER
    deck.save(str(path))
    return path


TEMPLATES = {"docx": _docx_template, "pptx": _pptx_template}


def _rebuilt(
    template: Path,
    out: Path,
    member: str,
    write: Callable[[IO[bytes], bytes], None],
    compresslevel: int = 6,
) -> Path:
    """`template` with `member` rewritten by `write(stream, original)`, streamed (zip64)."""
    with (
        zipfile.ZipFile(template) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=compresslevel) as target,
    ):
        for info in source.infolist():
            if info.filename != member:
                target.writestr(info.filename, source.read(info))
        with target.open(member, "w", force_zip64=True) as stream:
            write(stream, source.read(member) if member in source.namelist() else b"")
    return out


def _repeated_bytes(total: int) -> Callable[[IO[bytes], bytes], None]:
    def write(stream: IO[bytes], _original: bytes) -> None:
        chunk = b"\0" * MB
        for _ in range(total // MB):
            stream.write(chunk)

    return write


def _repeated_paragraph(total: int) -> Callable[[IO[bytes], bytes], None]:
    """Valid XML: the placeholder's paragraph (a `w:p` or `a:p`), with a longer sentence,
    repeated until the part is ~`total` bytes."""

    def write(stream: IO[bytes], original: bytes) -> None:
        at = original.index(PLACEHOLDER.encode())
        tag = b"w:p" if b"<w:p>" in original[:at] else b"a:p"
        start = original.rindex(b"<" + tag + b">", 0, at)
        end = original.index(b"</" + tag + b">", at) + len(tag) + 3
        sentence = b"The limit of a function describes its behaviour near a point. " * 16
        paragraph = original[start:end].replace(PLACEHOLDER.encode(), sentence)
        chunk = paragraph * (MB // len(paragraph))
        stream.write(original[:start])
        for _ in range(-(-total // len(chunk))):
            stream.write(chunk)
        stream.write(original[end:])

    return write


def _build_bombs(folder: Path) -> dict[str, Path]:
    templates = {kind: make(folder / f"small.{kind}") for kind, make in TEMPLATES.items()}
    jobs = {}
    for kind in templates:
        # Level 1 keeps generating 2 GiB near 5 s (the file is ~9 MB; level 9 gives ~2 MB in
        # twice the time): the declared size is what the first check refuses.
        jobs[f"bytes.{kind}"] = (_repeated_bytes(2 * GIB), 1)
        jobs[f"xml.{kind}"] = (_repeated_paragraph(200 * MB), 1)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:  # zlib frees the GIL
        futures = {
            name: pool.submit(
                _rebuilt, templates[name[-4:]], folder / name, MEMBER[name[-4:]], write, level
            )
            for name, (write, level) in jobs.items()
        }
        futures |= {
            f"liar.{kind}": pool.submit(
                _lying, template, folder / f"liar.{kind}", MEMBER[kind], 160 * MB, 4096
            )
            for kind, template in templates.items()
        }
        built = {name: future.result() for name, future in futures.items()}
    return {**built, **{f"small.{kind}": path for kind, path in templates.items()}}


@pytest.fixture(scope="session")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _build_bombs(tmp_path_factory.mktemp("bombs"))


@pytest.fixture(scope="session")
def measured(bombs: dict[str, Path]) -> dict[str, ChildRun]:
    """Every generated file loaded in a child process, with its time and added peak memory."""
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("peak memory is measured through Linux's /proc/self/clear_refs")
    return _run_children([(key, path, f"report.{key[-4:]}") for key, path in bombs.items()])


def _patch_member(path: Path, member: str, **fields: int) -> None:
    """Overwrite `crc`, `file_size` or `flag_bits` of `member` in both zip headers (no zip64)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        local = archive.getinfo(member).header_offset
    central = data.index(b"PK\x01\x02")  # the first central directory entry
    while data[central + 46 : central + 46 + len(member)] != member.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    # (offset in the local header, offset in the central header, struct format)
    layout = {"flag_bits": (6, 8, "<H"), "crc": (14, 16, "<L"), "file_size": (22, 24, "<L")}
    for name, value in fields.items():
        local_at, central_at, form = layout[name]
        if name == "flag_bits":
            value |= struct.unpack_from(form, data, central + central_at)[0]
        struct.pack_into(form, data, local + local_at, value)
        struct.pack_into(form, data, central + central_at, value)
    path.write_bytes(bytes(data))


def _lying(template: Path, out: Path, member: str, actual: int, declared: int) -> Path:
    """`member` inflates to `actual` zero bytes but the zip says `declared`, with the CRC of
    what zipfile would keep: zipfile alone inflates it all before noticing anything."""
    with (
        zipfile.ZipFile(template) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z,
    ):
        for info in source.infolist():
            if info.filename != member:
                z.writestr(info.filename, source.read(info))
        with z.open(member, "w") as stream:
            for _ in range(actual // MB):
                stream.write(b"\0" * MB)
    _patch_member(out, member, crc=zlib.crc32(bytes(declared)), file_size=declared)
    return out


@pytest.mark.parametrize("kind", ["docx", "pptx"])
@pytest.mark.parametrize("bomb", ["bytes", "xml"])
def test_a_zip_bomb_is_refused_fast_and_in_little_memory(
    measured: dict[str, ChildRun], kind: str, bomb: str
) -> None:
    run, small = measured[f"{bomb}.{kind}"], measured[f"small.{kind}"]

    assert small.outcome == "loaded"
    assert run.outcome == "ArchiveTooLargeError"
    assert run.message.startswith(f"'report.{kind}' is too large when unpacked")
    assert "split it" in run.message
    assert run.seconds < 2
    assert run.added_mb - small.added_mb < 100


def test_a_2_gib_part_is_reported_with_its_size_and_the_limit(bombs: dict[str, Path]) -> None:
    with pytest.raises(ArchiveTooLargeError) as refused:
        load_docx(bombs["bytes.docx"], "report.docx")

    message = str(refused.value)
    assert message.startswith("'report.docx' is too large when unpacked (2.0 GB of content in ")
    assert "the limit is 400 MB): save it without embedded media or split it." in message
    assert isinstance(refused.value, FileTooLargeError)  # reported as any oversized file


def test_a_200_mb_xml_part_is_over_the_limit_for_one_part(bombs: dict[str, Path]) -> None:
    with pytest.raises(ArchiveTooLargeError, match=r"ppt/slides/slide1\.xml alone is 20\d\.\d MB"):
        load_pptx(bombs["xml.pptx"], "deck.pptx")


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_a_part_inflating_past_its_declared_size_is_caught_while_streaming(
    bombs: dict[str, Path], measured: dict[str, ChildRun], kind: str
) -> None:
    with zipfile.ZipFile(bombs[f"liar.{kind}"]) as archive:  # 160 MB said to be 4 KB
        assert archive.getinfo(MEMBER[kind]).file_size == 4096
    run, small = measured[f"liar.{kind}"], measured[f"small.{kind}"]

    assert run.outcome == "ArchiveTooLargeError"
    assert f"{MEMBER[kind]} alone is more than 64 MB" in run.message
    assert run.seconds < 2
    assert run.added_mb - small.added_mb < 100  # unguarded, zipfile inflates all 160 MB in one call


def test_a_part_a_little_larger_than_declared_is_a_damaged_file(tmp_path: Path) -> None:
    template = _docx_template(tmp_path / "small.docx")
    path = _lying(template, tmp_path / "odd.docx", MEMBER["docx"], 2 * MB, 4096)

    with pytest.raises(CorruptFileError, match="may be damaged"):
        load_docx(path, "odd.docx")


def test_a_tightly_packed_part_within_the_size_limits_is_refused_by_its_ratio(
    tmp_path: Path,
) -> None:
    template = _docx_template(tmp_path / "small.docx")
    path = _rebuilt(
        template, tmp_path / "dense.docx", "customXml/item9.xml", _repeated_bytes(20 * MB)
    )

    with pytest.raises(
        ArchiveTooLargeError, match=r"packed far more tightly.*the limit is 100 to 1"
    ):
        load_docx(path, "dense.docx")


def test_media_that_do_not_compress_are_within_the_limits(tmp_path: Path) -> None:
    template = _docx_template(tmp_path / "small.docx")

    def video(stream: IO[bytes], _original: bytes) -> None:
        for _ in range(12):
            stream.write(os.urandom(MB))

    path = _rebuilt(template, tmp_path / "lecture.docx", "word/media/lecture.mp4", video)

    check_archive(path, "lecture.docx")  # no error
    assert load_docx(path, "lecture.docx").blocks


def test_too_many_parts_are_refused_with_the_count(tmp_path: Path) -> None:
    path = _pptx_template(tmp_path / "deck.pptx")

    with pytest.raises(ArchiveTooLargeError, match=r"too many parts \(\d+; the limit is 5\)"):
        load_pptx(path, "deck.pptx", limits=ArchiveLimits(max_members=5))


def test_the_limits_are_loader_parameters(tmp_path: Path) -> None:
    path = _docx_template(tmp_path / "notes.docx")

    assert load_docx(path, "notes.docx").blocks
    with pytest.raises(ArchiveTooLargeError, match="the limit is 1 KB"):
        load_docx(path, "notes.docx", limits=ArchiveLimits(max_xml_member_bytes=1024))


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_a_zip_password_on_a_part_is_reported_as_password_protected(
    tmp_path: Path, kind: str
) -> None:
    path = TEMPLATES[kind](tmp_path / f"locked.{kind}")
    _patch_member(path, MEMBER[kind], flag_bits=0x1)

    with pytest.raises(EncryptedFileError, match="password-protected"):
        loader_for(path.name)(path, path.name, False)


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_a_part_compressed_in_a_way_office_never_writes_is_a_damaged_file(
    tmp_path: Path, kind: str
) -> None:
    template = TEMPLATES[kind](tmp_path / f"small.{kind}")
    path = tmp_path / f"odd.{kind}"
    with zipfile.ZipFile(template) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info), zipfile.ZIP_BZIP2)

    with pytest.raises(CorruptFileError, match="may be damaged"):
        loader_for(path.name)(path, path.name, False)


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_a_cut_compressed_part_is_a_damaged_file(tmp_path: Path, kind: str) -> None:
    template = TEMPLATES[kind](tmp_path / f"small.{kind}")
    path = tmp_path / f"cut.{kind}"
    with zipfile.ZipFile(template) as source:
        info = source.getinfo(MEMBER[kind])
    data = bytearray(template.read_bytes())
    name_length, extra_length = struct.unpack_from("<2H", data, info.header_offset + 26)
    start = info.header_offset + 30 + name_length + extra_length
    data[start + info.compress_size // 2 : start + info.compress_size] = bytes(
        info.compress_size - info.compress_size // 2
    )
    path.write_bytes(bytes(data))

    with pytest.raises(CorruptFileError, match="may be damaged"):
        loader_for(path.name)(path, path.name, False)


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_the_xml_bomb_is_valid_xml_that_loads_when_small(tmp_path: Path, kind: str) -> None:
    template = TEMPLATES[kind](tmp_path / f"small.{kind}")
    path = _rebuilt(template, tmp_path / f"long.{kind}", MEMBER[kind], _repeated_paragraph(MB // 4))

    document = loader_for(path.name)(path, path.name, False)

    assert len(document.blocks) > 100
    assert document.blocks[-1].text.startswith("The limit of a function")


def test_a_directory_listing_too_many_parts_is_refused_before_zipfile_reads_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "many.pptx"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(2_000):
            archive.writestr(f"ppt/media/image{number}.png", b"")

    limits = ArchiveLimits(max_members=1_000)
    with pytest.raises(ArchiveTooLargeError, match=r"too many parts \(2,000; the limit is 1,000\)"):
        check_archive(path, "many.pptx", limits)

    _patch_end_record_count(path, 10)  # the count can lie; the directory's size cannot
    with pytest.raises(ArchiveTooLargeError, match="too many parts"):
        check_archive(path, "many.pptx", ArchiveLimits(max_members=200))


def test_a_zip64_end_record_is_read_for_the_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 100)  # zip64 records from 100 entries
    path = tmp_path / "many.docx"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(2_000):
            archive.writestr(f"word/media/{number}", b"")
    _patch_end_record_count(path, 10)  # the plain record says 10, the zip64 one 2,000

    limits = ArchiveLimits(max_members=1_000)
    with pytest.raises(ArchiveTooLargeError, match=r"too many parts \(2,000; the limit is 1,000\)"):
        check_archive(path, "many.docx", limits)


def _patch_end_record_count(path: Path, count: int) -> None:
    data = bytearray(path.read_bytes())
    at = data.rindex(b"PK\x05\x06")
    struct.pack_into("<2H", data, at + 8, count, count)
    path.write_bytes(bytes(data))
