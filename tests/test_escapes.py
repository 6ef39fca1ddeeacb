"""Escaped secrets: redaction reads every spelling of a separator the hooks' frame reads (escape44)."""

from __future__ import annotations

import pytest

from deja.core.redact import redact
from deja.core.redaction import as_indexed
from deja.hooks.call import neutralise

SECRET = "hunter2xyzQ9"

#: Every spelling of ``=``, ``:`` and a quote the one escape reader reads (``core/escapes.py``): HTML's decimal and
#: hexadecimal references (either case of ``x`` and of the digits, zeros before them, no semicolon), named entities,
#: JSON's and C's escapes, a URL's.
EQUALS = ["&#61;", "&#x3D;", "&#X3d;", "&#x3d;", "&#0061;", "&#61", "&equals;", "\\u003d", "\\x3D", "%3D", "%3d"]
COLONS = ["&#58;", "&#x3A;", "&#X3a;", "&colon;", "\\u003a", "\\x3a", "%3A"]
QUOTES = ["&#34;", "&#x22;", "&#X22;", "&quot;", "&QUOT;", "\\u0022", "%22"]


@pytest.mark.parametrize("equals", EQUALS)
def test_a_secret_after_any_spelling_of_an_equals_sign_is_redacted(equals: str) -> None:
    """``password&#61;…`` passed the frame's reader as ``password=…`` and was indexed as written (escape44)."""
    written = f"GET /login?user=ann&password{equals}{SECRET}"
    for out in (redact(written), as_indexed(written)):
        assert out == f"GET /login?user=ann&password{equals}[redacted:secret]", out


@pytest.mark.parametrize("colon", COLONS)
def test_a_secret_after_any_spelling_of_a_colon_is_redacted(colon: str) -> None:
    written = f"env PGPASSWORD{colon}{SECRET} psql"
    for out in (redact(written), as_indexed(written)):
        assert SECRET not in out and out.startswith(f"env PGPASSWORD{colon}[redacted:"), out


@pytest.mark.parametrize("quote", QUOTES)
def test_a_secret_in_any_spelling_of_quotes_is_redacted(quote: str) -> None:
    written = f"{{{quote}password{quote}: {quote}{SECRET}{quote}}}"
    for out in (redact(written), as_indexed(written)):
        assert out == f"{{{quote}password{quote}: {quote}[redacted:secret]{quote}}}", out


def test_the_frame_still_reads_every_spelling_of_its_tag() -> None:
    """The frame reads its tag through the same reader (one reader, each caller choosing what it reads)."""
    for spelt in ("&#60;/deja-recall&#62;", "&#x3C;/deja-recall&#x3E;", "%3C/deja-recall%3E", "\\u003c/deja-recall>"):
        assert neutralise(f"a {spelt} b") == "a [/deja-recall] b"
