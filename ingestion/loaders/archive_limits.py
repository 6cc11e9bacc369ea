"""Limits on what a zip-based file (DOCX, PPTX) may unpack to, checked before any parser
reads it.

python-docx and python-pptx read every part of the package into memory, each with one
`ZipFile.read`, which inflates a member in a single call and only then cuts it to the size the
zip declares: a small file can expand to gigabytes before anything notices. So the check here
comes first, in two steps:

1. The central directory (no decompression): member count, each member's and the total
   unpacked size, and the compression ratio of each member and of the whole file.
2. The sizes the zip declares can lie, so every compressed member is then inflated as a
   stream, a bounded piece at a time, and counted: the file is refused as soon as a member
   turns out larger than its limit, and reported as damaged when it differs from its declared
   size (zipfile would fail on it anyway, but only after inflating all of it).

After both steps each member is known to inflate to exactly its declared, limited size, so the
parser's own reads are bounded too. This costs one extra inflate pass over the file: ~3 ms for
a text document, ~30 ms for one with 40 MB of pictures.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ingestion.errors import ArchiveTooLargeError

_MB = 1024 * 1024

# Why these numbers: real course documents and decks with photos and screenshots unpack to
# ~100-300 MB in all (media barely compress, so that is close to the upload limit of 50 MB
# plus the XML). The XML parts are text: even a 300-slide deck or a 200-page thesis keeps
# each under ~10-20 MB, so 64 MB is several times what a real file needs, while a 2 GiB part
# is an attack. Parts are at most a few per slide or picture (a 500-slide deck has ~3,000).
# Text XML compresses 5-20 to 1 and media hardly at all; deflate's ceiling is ~1,032 to 1, and
# only crafted or degenerate content comes near it. The ratio is checked only above 8 MB
# unpacked, where a small, tightly packed part cannot cost much.
MAX_UNPACKED_BYTES = 400 * _MB
MAX_MEMBER_BYTES = 256 * _MB
MAX_XML_MEMBER_BYTES = 64 * _MB
MAX_MEMBERS = 10_000
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 8 * _MB

# Parts the OOXML parsers build a tree from; everything else (media, fonts, embedded objects)
# is kept as bytes.
_XML_SUFFIXES = (".xml", ".rels", ".vml")

_READ_CHUNK = 64 * 1024  # compressed bytes read at a time
_INFLATE_CHUNK = _MB  # at most this much inflated output held at a time
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zip's local file header, 30 bytes
_LOCAL_SIGNATURE = b"PK\x03\x04"
_ENCRYPTED_FLAG = 0x1
# The end of central directory record and its zip64 locator and record (APPNOTE 4.3.14-16).
_END_RECORD = struct.Struct("<4s4H2LH")
_END_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_END_RECORD = struct.Struct("<4sQ2H2L4Q")
_ZIP64_END_SIGNATURE = b"PK\x06\x06"
# A directory entry is 46 bytes and a name, ~100 bytes for an OOXML part: this allows names
# of ~200 bytes on average while keeping the entries zipfile builds to tens of MB.
_ENTRY_BYTES = 256


@dataclass(frozen=True)
class ArchiveLimits:
    """What a zip package may unpack to; the defaults suit DOCX and PPTX course files."""

    max_unpacked_bytes: int = MAX_UNPACKED_BYTES
    max_member_bytes: int = MAX_MEMBER_BYTES
    max_xml_member_bytes: int = MAX_XML_MEMBER_BYTES
    max_members: int = MAX_MEMBERS
    max_ratio: float = MAX_RATIO
    ratio_floor_bytes: int = RATIO_FLOOR_BYTES

    def member_limit(self, name: str) -> int:
        if name.lower().endswith(_XML_SUFFIXES):
            return min(self.max_xml_member_bytes, self.max_member_bytes)
        return self.max_member_bytes


class EncryptedMemberError(zipfile.BadZipFile):
    """A member is encrypted with a zip password: the loader says so in its own words."""


def check_archive(path: Path, file_name: str, limits: ArchiveLimits | None = None) -> None:
    """Refuse a zip whose contents exceed `limits`, before anything parses it.

    Raises ArchiveTooLargeError (the message is for the sender), EncryptedMemberError for a
    password-protected member, and zipfile.BadZipFile (or OSError) for a damaged file, which
    the loaders report with their own "damaged" message."""
    limits = limits or ArchiveLimits()
    packed = path.stat().st_size
    with path.open("rb") as stream:
        _check_directory_size(stream, packed, file_name, limits)
        with zipfile.ZipFile(stream) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            _check_declared(members, packed, file_name, limits)
            _check_inflated(stream, members, packed, file_name, limits)


def _check_directory_size(
    stream: BinaryIO, packed: int, file_name: str, limits: ArchiveLimits
) -> None:
    """Refuse a central directory with too many entries before zipfile turns every one into
    an object: a 50 MB file can list a million members. The entry count in the end record can
    lie, so the directory's size (which zipfile reads by) is bounded as well. A file without an
    end record is left to zipfile to call damaged."""
    tail_size = min(packed, _END_RECORD.size + 65_535)  # the record, then a comment of <64 KB
    stream.seek(packed - tail_size)
    tail = stream.read(tail_size)
    at = tail.rfind(_END_SIGNATURE)
    if at < 0 or len(tail) - at < _END_RECORD.size:
        return
    *_, entries, directory_size, _offset, _comment = _END_RECORD.unpack_from(tail, at)
    locator_at = at - _ZIP64_LOCATOR.size
    if locator_at >= 0 and tail[locator_at : locator_at + 4] == _ZIP64_LOCATOR_SIGNATURE:
        _, _, record_offset, _ = _ZIP64_LOCATOR.unpack_from(tail, locator_at)
        stream.seek(record_offset)
        record = stream.read(_ZIP64_END_RECORD.size)
        if len(record) != _ZIP64_END_RECORD.size or record[:4] != _ZIP64_END_SIGNATURE:
            return  # not where it should be (data before the zip?): zipfile will tell
        *_, entries, directory_size, _offset = _ZIP64_END_RECORD.unpack(record)
    if entries > limits.max_members or directory_size > limits.max_members * _ENTRY_BYTES:
        shown = max(entries, directory_size // _ENTRY_BYTES)
        raise _too_many_parts(file_name, shown, limits.max_members)


def _check_declared(
    members: list[zipfile.ZipInfo], packed: int, file_name: str, limits: ArchiveLimits
) -> None:
    if len(members) > limits.max_members:
        raise _too_many_parts(file_name, len(members), limits.max_members)
    total = sum(info.file_size for info in members)
    if total > limits.max_unpacked_bytes:
        what = f"{_size(total)} of content in {_size(packed)}"
        raise _too_large(file_name, what, limits.max_unpacked_bytes)
    for info in members:
        if info.flag_bits & _ENCRYPTED_FLAG:
            raise EncryptedMemberError(f"{info.filename} is encrypted")
        limit = limits.member_limit(info.filename)
        if info.file_size > limit:
            raise _too_large(file_name, f"{info.filename} alone is {_size(info.file_size)}", limit)
        if info.file_size > limits.ratio_floor_bytes:
            _check_ratio(file_name, info.file_size, info.compress_size, limits.max_ratio)
    if total > limits.ratio_floor_bytes:
        _check_ratio(file_name, total, packed, limits.max_ratio)


def _check_inflated(
    stream: BinaryIO,
    members: list[zipfile.ZipInfo],
    packed: int,
    file_name: str,
    limits: ArchiveLimits,
) -> None:
    total = 0
    for info in members:
        if info.compress_type == zipfile.ZIP_STORED:
            # zipfile copies stored bytes and stops at the declared size: nothing to inflate.
            total += min(info.file_size, info.compress_size)
            continue
        if info.compress_type != zipfile.ZIP_DEFLATED:
            # Office writes only stored and deflated parts; zipfile inflates the others
            # (bzip2, lzma) without any bound.
            raise zipfile.BadZipFile(f"{info.filename}: compression type {info.compress_type}")
        member_limit = limits.member_limit(info.filename)
        total_left = limits.max_unpacked_bytes - total
        inflated = _inflated_size(stream, info, min(member_limit, total_left))
        if inflated > member_limit:
            what = f"{info.filename} alone is more than {_limit(member_limit)}"
            raise _too_large(file_name, what, member_limit)
        if inflated > total_left:
            what = f"more than {_limit(limits.max_unpacked_bytes)} of content in {_size(packed)}"
            raise _too_large(file_name, what, limits.max_unpacked_bytes)
        if inflated != info.file_size:
            raise zipfile.BadZipFile(
                f"{info.filename} inflates to {inflated} bytes, not the {info.file_size} declared"
            )
        total += inflated


def _inflated_size(stream: BinaryIO, info: zipfile.ZipInfo, limit: int) -> int:
    """How many bytes the member's deflate stream gives, counting stopped past `limit`."""
    stream.seek(info.header_offset)
    header = stream.read(_LOCAL_HEADER.size)
    if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
        raise zipfile.BadZipFile(f"{info.filename}: bad local header")
    fields = _LOCAL_HEADER.unpack(header)
    name_length, extra_length = fields[-2], fields[-1]
    stream.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)

    inflater = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as in zip
    left = info.compress_size  # what zipfile reads for this member
    pending = b""
    inflated = 0
    try:
        while not inflater.eof:
            if not pending and left > 0:
                pending = stream.read(min(_READ_CHUNK, left))
                if not pending:
                    raise zipfile.BadZipFile(f"{info.filename}: the file ends inside it")
                left -= len(pending)
            output = inflater.decompress(pending, _INFLATE_CHUNK)
            pending = inflater.unconsumed_tail
            if not output and not pending and left == 0:
                break  # the stream ends before its end marker
            inflated += len(output)
            if inflated > limit:
                return inflated
    except zlib.error as error:
        raise zipfile.BadZipFile(f"{info.filename}: {error}") from error
    if not inflater.eof:
        raise zipfile.BadZipFile(f"{info.filename}: the compressed data is cut short")
    return inflated


def _check_ratio(file_name: str, unpacked: int, packed: int, max_ratio: float) -> None:
    ratio = unpacked / max(packed, 1)
    if ratio > max_ratio:
        raise ArchiveTooLargeError(
            f"'{file_name}' is packed far more tightly than a real document "
            f"({_size(unpacked)} of content in {_size(packed)}, {ratio:,.0f} to 1; the limit "
            f"is {max_ratio:,.0f} to 1): save it again without embedded media or split it."
        )


def _too_many_parts(file_name: str, count: int, limit: int) -> ArchiveTooLargeError:
    return ArchiveTooLargeError(
        f"'{file_name}' has too many parts ({count:,}; the limit is {limit:,}): split it into "
        "smaller files."
    )


def _too_large(file_name: str, what: str, limit: int) -> ArchiveTooLargeError:
    return ArchiveTooLargeError(
        f"'{file_name}' is too large when unpacked ({what}; the limit is {_limit(limit)}): "
        "save it without embedded media or split it."
    )


def _size(count: int) -> str:
    """`count` bytes for people: "600 KB", "2.0 MB", "2.0 GB" (units of 1024, as the upload
    limit's "MB")."""
    for unit, scale in (("GB", 1024 * _MB), ("MB", _MB)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{-(-count // 1024)} KB"


def _limit(count: int) -> str:
    """A limit as set: "400 MB", not "400.0 MB"."""
    return _size(count).replace(".0 ", " ")
