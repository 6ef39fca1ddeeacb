"""Tables a hook builds as it starts, made by ``str``'s methods or at their first use (cheaper to start), are the
tables the comprehensions they replace made."""

from __future__ import annotations

import sys

from deja.core import text
from deja.core.text import JOINERS, ascii_spaces
from deja.hooks import call, prompt


def _spaces_asked_of_each(keep: str) -> dict[int, str]:
    return str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum() and c not in keep})


def test_ascii_spaces_is_the_table_asking_each_ascii_character_made() -> None:
    for keep in ("", JOINERS, "_./:#-", "@"):
        assert ascii_spaces(keep) == _spaces_asked_of_each(keep)
        assert list(ascii_spaces(keep)) == list(_spaces_asked_of_each(keep))
    assert _spaces_asked_of_each(JOINERS) == text._APART and _spaces_asked_of_each("") == text._NOT_ALNUM
    assert _spaces_asked_of_each(prompt._NAME_JOINERS) == prompt._NOT_IN_WORD
    assert bytes(ord(text._APART.get(b, chr(b))) for b in range(256)) == text._APART_BYTES


def test_a_text_spaced_through_bytes_is_the_text_str_translate_spaces() -> None:
    """``with_spaces`` reads a text as UTF-8 bytes through a 256-byte table: every code point, a lone surrogate
    among them, comes back as ``str.translate`` of the table's dict gives it."""
    every = "".join(map(chr, range(0x110000)))
    for table, spaced in (
        (text._APART, text._APART_BYTES),
        (text._NOT_ALNUM, text._NOT_ALNUM_BYTES),
        (prompt._NOT_IN_WORD, prompt._NOT_IN_WORD_BYTES),
    ):
        assert text.with_spaces(every, spaced) == every.translate(table)
        assert text.with_spaces("a-b_c.d", spaced) == "a-b_c.d".translate(table)  # (an ASCII text: its own path)


def test_the_escape_tables_made_at_first_use_are_the_ones_made_at_import() -> None:
    control = text._CONTROL_CHARS + "\n\t"
    assert text._escapes() == {
        code: "\\n" if code == 10 else "\\t" if code == 9 else f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"
        for code in map(ord, control)
    }
    assert text.escaped("a\x1b[31mb\u202ec\n") == "a\\x1b[31mb\\u202ec\\n"
    assert call._escapes() == {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))} | {
        0x2028: "\\u2028",
        0x2029: "\\u2029",
    }
    assert not any(chr(code).isprintable() for code in call._escapes())  # (so ``log`` skips a printable line)


def test_a_name_the_index_package_gave_is_kept_as_its_own() -> None:
    from deja.core.index import Index, read_manifest

    package = sys.modules["deja.core.index"]
    assert vars(package)["Index"] is Index and vars(package)["read_manifest"] is read_manifest


def test_the_look_alike_table_made_at_first_use_is_the_one_made_at_import() -> None:
    made = str.maketrans(
        {
            spelling: letter
            for letter, looks in call._LETTERS.items()
            for look in looks
            for spelling in (look, look.lower(), look.upper())
            if len(spelling) == 1
        }
        | {"\u0130": "l", "\u0131": "l", "\u1c83": "c"}
    )
    assert call._as_letter() == made and list(call._as_letter().items()) == list(made.items())
