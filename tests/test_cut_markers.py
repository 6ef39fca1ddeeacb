"""A line cut to fit ends before a secret's marker, never inside it (trial22 N6): a session's title or first ask
holding a pasted secret ended ``slack [redacted:sla…`` in the hooks' blocks, which read as a broken marker."""

from __future__ import annotations

from datetime import UTC, datetime

from deja.core.lines import cut
from deja.hooks.describe import heading

ASKED = "refunds are off by a cent. DATABASE_URL=postgres://shop:[redacted:url-credentials]@localhost/shop"


def test_a_cut_between_words_ends_before_a_marker_it_would_split() -> None:
    assert cut(ASKED, 70, words=True) == "refunds are off by a cent. DATABASE_URL=postgres://shop:…"
    assert cut("stripe webhook 401. slack [redacted:slack-token] again", 40, words=True) == "stripe webhook 401. slack…"
    for limit in range(58, 68):  # (a cut inside "[redacted:" itself too: review41d L1)
        assert cut(ASKED, limit, words=True) in (
            "refunds are off by a cent.…",
            "refunds are off by a cent. DATABASE_URL=postgres://shop:…",
        )


def test_a_heading_cuts_a_long_title_between_words_and_says_so() -> None:
    """A title past 80 characters was cut at the 80th, mid-word or mid-marker, with no "…"."""
    title = "stripe webhook 401 again after the rotation. STRIPE_SECRET_KEY=[redacted:stripe-key] in the env"
    said = heading(title, "shop", datetime(2026, 12, 1, tzinfo=UTC), "c-1")
    assert said.startswith('- "stripe webhook 401 again after the rotation.…" (shop, '), said
