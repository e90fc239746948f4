"""Turn a submitted notebook file's bytes into text: the one place the course decides an encoding.

Jupyter writes UTF-8, but students' notebooks pass through Windows editors, converters and "Save as"
dialogs: UTF-8 with a byte-order mark, UTF-16 (Windows Notepad's "Unicode"), Latin-1 or Windows-1252
(Notepad's "ANSI"). All of them are still the student's work, so they are decoded and graded; the
returned ``note`` says what was unusual, for a finding. Both intake and the standalone door call
``decode``; nothing else in the course decodes a submission.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

# Longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
# Bytes 0x80-0x9f are printable in Windows-1252 (curly quotes, dashes, the euro sign) and control
# characters in Latin-1, which no one types: seeing one means Windows-1252.
WINDOWS_ONLY = bytes(range(0x80, 0xA0))


class NotText(ValueError):
    """The bytes are not text in any encoding a notebook could have been saved in."""


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # the codec used
    note: str | None = None  # what was unusual about the file (None: plain UTF-8)
    guessed: bool = False  # the encoding was inferred from the bytes, not declared by a byte-order mark


def decode(raw: bytes) -> Decoded:
    """Decode a notebook file. Raises ``NotText`` for binary data."""
    for mark, codec, name in BOMS:
        if raw.startswith(mark):
            try:
                text = raw.decode(codec)
            except UnicodeDecodeError as error:
                raise NotText(
                    f"it starts with a {name} byte-order mark but is not {name} (byte {error.start})"
                ) from None
            return Decoded(
                text.lstrip("\ufeff"),
                codec,
                f"the file was saved as {name} with a byte-order mark; it was decoded as such",
            )
    # A notebook starts with "{": UTF-16 without a mark shows it as "{\0" or "\0{".
    if len(raw) >= 2 and (raw[0] == 0) != (raw[1] == 0):
        codec = "utf-16-be" if raw[0] == 0 else "utf-16-le"
        try:
            return Decoded(
                raw.decode(codec),
                codec,
                "the file was saved as UTF-16 without a byte-order mark; it was decoded as such",
                guessed=True,
            )
        except UnicodeDecodeError:
            pass
    if b"\0" in raw:
        raise NotText("it contains NUL bytes, so it is binary data, not a notebook")
    try:
        return Decoded(raw.decode("utf-8"), "utf-8")
    except UnicodeDecodeError as error:
        first_bad = error.start
    if any(byte in WINDOWS_ONLY for byte in raw):
        try:
            return Decoded(
                raw.decode("cp1252"),
                "cp1252",
                "the file is not UTF-8 (byte "
                f"{first_bad}); it was read as Windows-1252, which it appears to be, so "
                "accented letters in it may show wrongly",
                guessed=True,
            )
        except UnicodeDecodeError:
            pass  # a byte cp1252 leaves undefined; Latin-1 reads every byte
    return Decoded(
        raw.decode("latin-1"),
        "latin-1",
        f"the file is not UTF-8 (byte {first_bad}); it was "
        "read as Latin-1 (ISO-8859-1), so accented letters in it may show wrongly",
        guessed=True,
    )


__all__ = ["decode", "Decoded", "NotText"]
