"""Files users send: their names are made safe to write (no folders, no odd characters, a
length the file system accepts, the type kept), the type and size are checked before any
download, and the temporary folder is removed afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import BadInputError
from core.requests import IncomingFile
from core.uploads import ExpectedUploads, UploadDesk, safe_file_name, upload_folder
from ingestion.errors import IngestError
from ingestion.loaders import loader_for

MB = 1_048_576


class TypesOnly:
    """What `Ingestor.type_error` answers, without an index behind it."""

    def type_error(self, file_name: str) -> str | None:
        try:
            loader_for(file_name)
        except IngestError as error:
            return str(error)
        return None


async def _never(_path: Path) -> None:
    raise AssertionError("nothing is downloaded before it is checked")


def check(file_name: str, size: int | None, max_bytes: int, limit: int | None = None) -> None:
    desk = UploadDesk(TypesOnly(), ExpectedUploads(None, "t"), max_bytes)  # type: ignore[arg-type]
    desk.check(IncomingFile(file_name, size, _never, platform_limit=limit))


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("notes.pdf", "notes.pdf"),
        ("Lecture 3 (v2).pptx", "Lecture 3 (v2).pptx"),
        ("Übung_1-Lösung.md", "Übung_1-Lösung.md"),
        ("../../etc/passwd", "passwd"),
        ("/etc/shadow", "shadow"),
        ("C:\\Users\\ana\\Desktop\\notes.pdf", "notes.pdf"),
        ("..\\..\\boot.ini", "boot.ini"),
        ("a<b>:c|d?*.pdf", "a_b_c_d_.pdf"),
        ("tab\there\nnew\x00line.md", "tab_here_new_line.md"),
        (".env", "env"),
        ("  spaced out.md  ", "spaced out.md"),
    ],
)
def test_safe_file_name_drops_folders_and_odd_characters(sent: str, kept: str) -> None:
    assert safe_file_name(sent) == kept


@pytest.mark.parametrize("sent", ["", "   ", ".", "..", "...", "/", "../", "\\\\", " . "])
def test_a_name_with_nothing_left_becomes_upload(sent: str) -> None:
    assert safe_file_name(sent) == "upload"


@pytest.mark.parametrize(
    "sent", ["../../x.pdf", "a/../../b.md", "C:\\..\\..\\c.docx", "..", "x/..", "/" * 5]
)
def test_safe_file_name_stays_inside_the_upload_folder(tmp_path: Path, sent: str) -> None:
    name = safe_file_name(sent)

    assert "/" not in name and "\\" not in name and name not in ("", ".", "..")
    assert (tmp_path / name).resolve().parent == tmp_path.resolve()


def test_a_long_name_keeps_its_type() -> None:
    # The pipeline picks the loader by the name it is given; cutting the extension off a
    # long name would refuse a file the upload check accepted.
    sent = "Lecture notes " + "very " * 60 + "long.pdf"
    check(sent, 1000, 10 * MB)

    name = safe_file_name(sent)
    assert len(name) <= 200
    assert name.endswith(".pdf")
    loader_for(name)


def test_a_long_non_ascii_name_can_be_written(tmp_path: Path) -> None:
    # File systems limit a name to 255 bytes, not characters (ext4, APFS, NTFS in UTF-16).
    name = safe_file_name("конспект лекции " * 20 + ".md")

    assert len(name.encode()) <= 255
    (tmp_path / name).write_text("# notes")
    assert (tmp_path / name).read_text() == "# notes"


@pytest.mark.parametrize(
    "name", ["notes.pdf", "NOTES.PDF", "readme.md", "limits.exercise.yaml", "slides.pptx"]
)
def test_supported_types_within_the_limit_are_accepted(name: str) -> None:
    check(name, 10 * MB, 10 * MB)
    check(name, None, 10 * MB)  # a platform that does not say the size


@pytest.mark.parametrize("name", ["virus.exe", "data.yaml", "archive.zip", "README", "photo.png"])
def test_unsupported_type_is_refused_naming_what_is_supported(name: str) -> None:
    with pytest.raises(BadInputError) as refused:
        check(name, 10, 10 * MB)
    message = str(refused.value)
    assert message.startswith(f"'{name}': ")
    assert ".pdf" in message and ".exercise.yaml" in message


def test_oversized_file_is_refused_before_download() -> None:
    check("big.pdf", 50 * MB, 50 * MB)
    with pytest.raises(BadInputError) as refused:
        check("big.pdf", 60 * MB, 50 * MB)
    assert str(refused.value) == "'big.pdf': the file is 60.0 MB; the limit is 50 MB"


def test_a_platform_download_limit_below_the_setting_applies() -> None:
    check("big.pdf", 19 * MB, 50 * MB, limit=20 * MB)
    with pytest.raises(BadInputError, match="the limit is 20 MB"):
        check("big.pdf", 30 * MB, 50 * MB, limit=20 * MB)


def test_unsupported_type_is_reported_before_size() -> None:
    with pytest.raises(BadInputError, match="not a supported type"):
        check("huge.exe", 500 * MB, 50 * MB)


def test_upload_folder_is_private_and_removed_with_its_files() -> None:
    with upload_folder() as folder:
        assert folder.is_dir()
        assert folder.stat().st_mode & 0o077 == 0
        (folder / "notes.md").write_text("# notes")
        (folder / "sub").mkdir()
        (folder / "sub" / "more.md").write_text("more")
    assert not folder.exists()


def test_upload_folder_is_removed_when_ingestion_fails() -> None:
    with pytest.raises(RuntimeError), upload_folder() as folder:
        (folder / "notes.md").write_text("# notes")
        raise RuntimeError("ingestion failed")
    assert not folder.exists()


def test_each_upload_gets_its_own_folder() -> None:
    with upload_folder() as first, upload_folder() as second:
        assert first != second
