"""The index on disk: its layout, its constants, and reading the manifest that names it.

Layout under ``<DEJA_HOME>/index/``::

    manifest.msgpack        format version, generation, the live segments and what is deleted in each
    seg-<id>/               one immutable segment
        dicts.bin           the preset deflate dictionary of its sessions (empty in a segment of fewer than
                            ``DICT_SESSIONS`` sessions): the end of its first sessions' metas, then of their records
        sessions.bin        per session, its SessionMeta (a msgpack array) deflated: the first part of the session's
                            deflate stream, flushed to a byte boundary (``SYNC``, whose last four bytes are left out)
        records.bin         per session, its redacted messages (and title), msgpack arrays back to back: the rest of
                            that stream, so a message repeating its meta's ask, answer or title costs a reference
        docs.bin            per doc, three u32: its session ordinal (its kind in the top three bits), where its
                            message starts and ends in its session's records
        sessions.idx        per session where its meta and its records are
        terms.bin/.idx      sorted terms and, per term, where its postings are
        postings.bin        per term, highest impact first: the keyed terms (``deja.core.keys``, sorted first)
                            (doc, float32 time) pairs; a word its impacts as runs (a u32 count of runs, each
                            run's float16 impact, each run's length in a byte) and then its docs (``doc_width``
                            bytes each: 2 or 3), its best ``WORD_POSTINGS_KEPT`` (its head); a word holding
                            more docs then holds the rest (its tail) in ascending doc order, in deflated blocks
                            of ``TAIL_BLOCK`` postings after a table of each block's first doc; a segment holding
                            a tail ends with each doc's own impact (``TAIL_GAPS``)

A writer builds new segments beside the live ones and then replaces
``manifest.msgpack`` with ``os.replace``; a reader opens the manifest once and
sees a whole index, old or new, without ever taking the lock.

Why it is small: a session's meta and messages deflate together, the meta first (its ask, answer and title are
the messages' words), against a dictionary taken from the segment's first sessions (what sessions share: the words
of the project, the tools' names and arguments, the metas' fields); a record is a msgpack array, with no field
names; a doc costs 12 bytes; a word's posting 2 or 3 (its doc; its session is the doc's, read from ``docs.bin``)
and its impact is shared by the run of postings that have it; a common word's tail is read only by a filtered
search, and only the blocks holding the docs it admits (found by halving their first docs): about a byte a posting,
its doc a gap from the one before and its impact its doc's own, deflated.

The records themselves (``SessionMeta``, ``Manifest``…) are msgspec Structs in
``records.py``; a ``Codec`` says how a reader decodes them: into those Structs
(``records.STRUCTS``), or, on a hook's path, into plain objects with the same
fields without importing msgspec at all (``light.LIGHT``). Nothing here
imports msgspec.
"""

from __future__ import annotations

import _struct as struct  # (``struct`` is this C module re-exported: one module file fewer to load)
import zlib
from _operator import itemgetter  # (``operator``'s C half, which the interpreter has built in)

from .. import oscalls
from ..fields import (
    KIND_ASSISTANT,
    KIND_COMMAND,
    KIND_EDIT,
    KIND_ERROR,
    KIND_OUTPUT,
    KIND_TITLE,
    KIND_USER,
)
from ..keys import project_spelling, resolved_folder
from ..private import access_fix
from ..record import Record

TYPE_CHECKING = False  # typing's own, without importing typing (every hook would pay for it); type checkers know it
if TYPE_CHECKING:  # (a hook reads the index with paths as strings: no pathlib)
    from collections.abc import Callable
    from pathlib import Path

    from _typeshed import StrPath

    from ..model import Message
    from .records import Manifest, SessionMeta

#: 6: tool output, error-line, edit and command field docs; dates as keys; accent folding; Snowball stems.
#: 7: a session's records compressed together, 12-byte docs, 6-byte postings, a common word's tail not kept.
#: 8: the same layout; an error line weighs 0.8, and a title that repeats the first question is not indexed.
#:    Impacts are stored, so an index of 7 would keep ranking by the old weights until rebuilt.
#: 9: records and session metas deflated against a per-segment dictionary (``dicts.bin``), a word's postings as
#:    impact runs and 2- or 3-byte docs, 22-byte term rows.
#: 10: a key per folder a session ran in or below (``keys.tree_key``): a folder's sessions include its subfolders'.
#: 11: a message's searchable words hold the editor's ``target_file``/``target_directory`` (and a call's ``url``);
#:     a cursor-agent chat adds the turns only its store holds, an editor chat read from its transcript is
#:     ``cursor-ide`` under its name, a named editor chat with no bubble row is a session with no message. An index
#:     of 10 would lack them until rebuilt.
#: 12: a message's date keys are its UTC day, whatever offset its transcript stamp was written in (an index of 11
#:     filed a stamp's own day: a search for a day missed it). A project's keys are its folder composed (NFC), a
#:     name byte that is not UTF-8 read as U+FFFD (``keys.readable_path``).
#: 13: a store-only chat whose ``meta.json`` has no ``cwd`` is placed by its preamble's ``Workspace Path:`` line (an
#:     index of 12 left it with no project until rebuilt), and a folder's ``project_dir`` is spelt one way whichever
#:     store named it (``keys.disk_spelling``: an index of 12 kept a decomposed and a composed spelling); text is
#:     composed (NFC) before it is cut into terms (``text.composed``: an index of 12 split a decomposed word at
#:     each accent).
#: 14: a word's combining marks that composing leaves (Hindi's vowel signs, Hebrew's points, Arabic's vowels) are
#:     taken out before it is cut into terms (``text.unmarked``: an index of 13 cut such a word into its letters).
#: 15: a Shell command's head key (``keys.command_head``) skips a global flag's value (``kubectl -n prod get`` is
#:     ``kubectl get``, not ``kubectl prod``), takes a group's subcommand (``docker compose up``), a script
#:     (``python manage.py migrate``) and the command a wrapper runs (``uv run pytest`` is ``pytest``): an index of
#:     14 filed those runs under the old heads, which the Shell hook's lookup no longer asks for, until rebuilt.
#:     And an error's key is its message's, without pytest's ``E`` marker and what printed it
#:     (``errors.error_identity``: ``psql: error:``, ``psycopg2.OperationalError:``); an index of 14 keyed each tool's
#:     line apart, and a failure printed by another tool would not be found until rebuilt. And a session's
#:     ``concluded`` is its last answer's prose: after its last code block (else before its first), after the files
#:     its code was for (an index of 14 kept the answer's first 300 characters: an opening line and code); it and
#:     ``asked`` are cut between words. (One version for the three, in one release: a user pays one rebuild.)
#: 16: an editor chat of Cursor 0.42 and before (its conversation inline, no tool calls) holds an ``edit_file`` call
#:     for each file its answers' applied code blocks were for (``readers.ide._block_edits``): an index of 15 read
#:     none, and the databases that hold such chats no longer change, so no refresh would read them again.
#: 17: an old Chat panel tab's messages and start have no time, its ``lastSendTime`` being its last time alone
#:     (``readers.ide._tab_session``): an index of 16 stamped every message with it, and those databases no longer
#:     change, so no refresh would read them again.
#:     And a message, a tool call and a session's meta are stored as msgpack arrays, not maps
#:     (``records.StoredMessage``), and deflated at level 5, not 6: the same content, in a smaller index built with
#:     less CPU. (Both in one release: a user pays one rebuild.)
#: 18: a project whose folder is a Windows drive's (``c:\\…``, on Windows or in a database written there) has the
#:     tree keys of its folder and those above it (``keys.tree_keys``): an index of 17 filed none, so ``deja wip`` of
#:     such a folder and blame with it found no session until rebuilt.
#: 19: a session's ``asked`` is the ask its last answer answers, in its own words (``lines.own_words``: a pasted
#:     config or traceback given by one line of it; ``indexer.records._asked``): in a
#:     chat resumed after a gap, the ask that resumed it and ``(chat began DATE: FIRST ASK)``. An index of 18 kept
#:     the first ask's first non-empty line, and the hooks' "Recent sessions" paired a chat's first
#:     question with the answer to a later one until the chat changed again.
#: 20: a common word's postings past its best ``WORD_POSTINGS_KEPT`` are kept, in doc order after them (its tail), where
#:     an index of 19 dropped them: a filter by project (or a narrow since or source) found none of its sessions whose
#:     word was in the dropped tail, and said to drop the filter to see others (``search._add_postings``).
#:     And a session's ``asked`` gives a pasted block by a line without its values (``lines.without_values``: a YAML
#:     ``password: …``, a log line by its time and level), reads SQL, a whole pytest run and a ``SyntaxError`` as
#:     pastes, and the question after a paste longer than ``lines.ASK_READ`` (review47k): an index of 19 kept a
#:     paste's first line whole in the hooks' "Recent sessions", a value the redaction rules missed with it. And a
#:     chat Cursor named none is titled by its first ask's own words where that ask's first line was pasted
#:     (``lines.first_line``): its title headed the block with the paste's first line.
#: 21: a long chat whose title names a later turn than its first (a chore before it and after it) has as its
#:     ``asked`` and ``concluded`` that part's ask and last answer (``topic.summarised_part``), and says how many
#:     messages follow the part (``SessionMeta.after_part``, which the failure hook reads): an index of 20 gave its
#:     first ask and last answer, the chores, in every new chat's "Recent sessions" (trial48b F5).
#: 22: a session's meta and its records are one deflate stream, the meta first, against one dictionary of the
#:     segment's first metas and records (``deflater``): a message repeating the meta's ask, answer or title costs a
#:     reference, where format 21 deflated them apart (records and metas 5% smaller, the index 2.5%: issue 15's size).
#:     And a term row is 19 bytes, its postings offset in 5 (``TERM_ROW``), not 22.
#: 23: a session's row holds the CRC-32s of its deflated meta and records (``SESSION_ROW``), checked at every read
#:     with the dictionary's (``Segment.inflating``): a byte flipped in sessions.bin, records.bin or dicts.bin gave
#:     other messages without an error (review51c F1). And a hashed key is 14 base64 digits (84 bits), not 20 hex
#:     digits (80; ``keys._digest``).
#: 24: a session's row holds a check of its own bytes in its three padding bytes (``ROW_CRC_BELOW``), checked whenever a
#:     read uses its fields: a byte flipped in its project or directory hash or its ``updated`` time read as another
#:     project or day with no error, so ``deja sessions --since`` said there were none (review52c F2).
#:     And a session whose last answer is one short line of progress ("Checking.") has no ``concluded``
#:     (``settled.only_progress``): the session-start block gave it as the outcome (trial53 F2).
#: 25: an HTTP status line of a failed command's output (``errors.STATUS_LINE``) is keyed by its status and host, as
#:     is curl's ``The requested URL returned error: NNN`` (errs54): its key changed, and a format 24 index kept the
#:     old one, which the failure hook no longer looks up (review54b F2). And a last answer that only names the next
#:     step concludes nothing (``settled.only_next_steps``).
#: 26: a last answer that only names the next step after a word of assent or an acknowledgement ("Good. Now let me…",
#:     "Ah, I see. Let me…", "Thanks! Let me…") or says how it is taken ("…, this time with -v") concludes nothing, and
#:     so does one that only acknowledges ("Understood.", "Got it."); "Keeping a single worker." concludes, and a
#:     finding after "good:" inside a sentence or a clause of what came of the step ("…, with the fixture
#:     regenerated") stays the conclusion (``settled.only_next_steps``, ``settled._decided``: review54f F8, F9, F12,
#:     review55a F1-F5); so does a question or sign-off after an acknowledgement ("Got it. Would you like…?"), and
#:     acknowledgements run together or in bold ("Got it, thanks!", "**Understood.**") conclude nothing (review55c F1,
#:     F5, F6; 26 was not released, so no bump). And a remote window's chat (``vscode-remote://…``) is filed under
#:     its folder and where it ran (``infra (devbox)``) with no ``project_dir``, not under a local folder of the same
#:     path (``readers.remote``: trial57 F2; 26 was not released, so no bump).
FORMAT_VERSION = 26
#: How many formats past this one a newer deja's index may plausibly be (some twenty were made in fifty stops): a
#: number further on is a damaged manifest, which a rebuild mends, not a newer deja's index, which is left alone.
NEWER_FORMATS = 16
#: The index's folder in deja's home, and the file in it that names the live segments.
INDEX = "index"
MANIFEST = "manifest.msgpack"
#: The freshness record (``indexer.freshness``) and the file whose modification time dates the last whole check
#: (``indexer.glance``): here, where a hook that reads neither finds how long ago the index was last looked at
#: (``hooks.call.request_catch_up``).
FRESHNESS_RECORD = "freshness.json"
WHOLE_STAMP = "checked-whole"

SOURCE_CODES = {"cursor-ide": 1, "cursor-cli": 2}
#: Field weights (KIND_OUTPUT, KIND_ERROR, KIND_EDIT) tuned on the coding benchmark's tuning half
#: (bench/coding_history.py); the message weights on LoCoMo (bench/locomo.py).
KIND_WEIGHT = {
    KIND_USER: 1.3,
    KIND_ASSISTANT: 1.0,
    KIND_TITLE: 1.5,
    KIND_OUTPUT: 0.5,
    # An error line is in its command's output doc too, and a turn adds the two up (``search._turns``): 1.6 when
    # the error doc had to win alone; 0.8 with turns, on the coding tuning half (R@1 96.9% -> 100%; reporting
    # unchanged at 90.3%).
    KIND_ERROR: 0.8,
    KIND_EDIT: 0.5,
    # Commands already count in their message's doc: this doc is for ``--role command``, and weighs little.
    KIND_COMMAND: 0.2,
}
K1, B = 0.7, 0.3

#: A doc's row in ``docs.bin``: session ordinal | kind << KIND_SHIFT, and where its message starts and ends in
#: its session's records once inflated (a snippet inflates only that far and decodes only its own message; the
#: field docs of a message share its span).
DOC_ROW = struct.Struct("<III")
KIND_SHIFT = 29
ORDINAL_MASK = (1 << KIND_SHIFT) - 1
#: meta offset, meta length, project hash, dir hash, source, updated, records offset, records length, first doc, and
#: the CRC-32 of the meta's part of the session's deflate stream, then of the meta's and records' parts together
#: (``stream_checks``): raw deflate holds no checksum, and a byte flipped in sessions.bin or records.bin, read
#: without them, gave other messages, not an error (review51c F1; format 23). The three bytes after the source
#: (``ROW_CHECK_AT``) make the row's own CRC-32 less than ``ROW_CRC_BELOW`` (format 24).
SESSION_ROW = struct.Struct("<QIIIBxxxdQIIII")
#: Every session's row has a CRC-32 below this (its top 24 bits 0), made so by the three bytes at ``ROW_CHECK_AT``
#: (``writer.session_row``), and a read of a row's fields checks it (``Segment._row``): its hashes, source and time
#: are covered by no other check (its CRCs are of the session's deflated bytes), and a flipped byte there read as
#: another project or day (review52c F2). One CRC of the row as it is, rather than a CRC of its other bytes compared
#: with those three: about 0.3 us a row read, against 0.8. Its top 24 bits, as what three bytes at that place flip
#: of its low 24 spans only 23. Whether a flipped byte is seen depends only on where and which bits (a CRC is
#: linear), and each of the 56 x 255 single-byte flips is (``tests/test_session_row_check.py``).
ROW_CRC_BELOW = 1 << 8
ROW_CHECK_AT = 21


def row_crc(row: bytes | memoryview, ordinal: int) -> int:
    """The CRC-32 of session ``ordinal``'s row, begun from its ordinal rather than 0: a row is checked where it is,
    so two rows swapped by a stray write (each whole, each with its own check) are refused, not read as each other's
    sessions (review53b F1: ``deja show`` gave the other session's title and dates above this one's messages)."""
    return zlib.crc32(row, ordinal)


#: term offset, term length, postings offset (its low 32 bits, then its next 8: a segment's postings.bin may pass
#: 4 GiB, never 1 TiB; ``term_row``), postings kept, postings in all (the docs holding the term: its idf). 19 bytes,
#: where a u64 offset made it 22: terms.idx was 6% of the index at 10k sessions (format 22).
TERM_ROW = struct.Struct("<IHIBII")
#: A word's postings kept best first (its head) per segment of more than ``WHOLE_LISTS_DOCS`` docs: an unfiltered
#: search never reads further there (``search_filters.FILTERED_BUDGET``). The rest (its tail, the postings in all
#: less the head's) follow in doc order, for a filter admitting few docs to find its own among them
#: (``Segment.tail``). In an index of at most ``WHOLE_LISTS_DOCS`` docs search reads every list whole.
WORD_POSTINGS_KEPT = 8192
WHOLE_LISTS_DOCS = 65_536
KEYED_POSTING = struct.Struct("<If")  # doc, days since the epoch (a key's postings: newest first)
#: A word's postings list starts with its number of impact runs; a run is at most ``MAX_RUN`` postings long.
RUNS = struct.Struct("<I")
#: A word's tail (``writer._tail``) is cut into blocks of ``TAIL_BLOCK`` postings: first, per block, its first doc
#: and where its two streams end past this table (``TAIL_SKIP``: a filter finds the blocks a session's docs lie in
#: by halving the first docs); then each block as two raw deflate streams: its docs, each as its gap from the one
#: before (the first's from the block's first doc) in a byte, a byte of 255 adding 255 more; and a byte a posting,
#: 1 when its impact is not its doc's own, then those impacts (float16s). A doc's own impact (its impact at a count
#: of one: most postings') is the segment's, whatever the word: in a segment holding a tail, postings.bin ends with
#: how many distinct ones (a ``TAIL_GAPS``), they (float16s), each doc's among them deflated (a byte, or 2 past 256
#: of them), and the length of those (a ``TAIL_GAPS``).
TAIL_BLOCK = 4096
TAIL_SKIP = struct.Struct("<III")
TAIL_GAPS = struct.Struct("<I")
MAX_RUN = 255
#: Deflate level of records and metas: with a dictionary 6 is 10% smaller than 1 (at 10k sessions: 19.5 against
#: 21.7 MB of records), for about 2 s more CPU in a 10k build (bench/index_bytes.py). 5 deflates in a third less
#: CPU than 6 for 1.4% more bytes, which records stored as arrays (format 17, 2% fewer bytes) more than pay for.
RECORDS_LEVEL = 5
#: Raw deflate: no zlib header or Adler-32 per block (every file of a segment has its CRC-32 in the manifest).
WBITS = -15
#: A segment's dictionary is the last ``DICT_META_BYTES`` of its first ``DICT_SESSIONS`` sessions' metas and then
#: the last of their records, ``DICT_BYTES`` in all (deflate looks back 32 KiB at most). A segment of fewer sessions
#: (a refresh's) deflates without one. 8 KiB of metas: at 1k sessions records and metas took 5.1% fewer bytes than
#: deflated apart against a dictionary each (4.6% with 16 KiB, 5.0% with 4 or 12 KiB).
DICT_SESSIONS = 32
DICT_BYTES = 32 * 1024
DICT_META_BYTES = 8 * 1024
#: What a sync flush ends a session's meta with (an empty stored block's lengths): left out of sessions.bin, put
#: back between the meta and the records to inflate the records.
SYNC = b"\x00\x00\xff\xff"


def term_row(t_off: int, t_len: int, p_off: int, kept: int, holding: int) -> bytes:
    """A term's row of terms.idx (``TERM_ROW``): its postings offset cut into its low 32 bits and the 8 above them."""
    return TERM_ROW.pack(t_off, t_len, p_off & 0xFFFFFFFF, p_off >> 32, kept, holding)


def tail_blocks(postings: int) -> int:
    """How many blocks a word's tail of ``postings`` postings is cut into (``TAIL_BLOCK`` a block)."""
    return -(-postings // TAIL_BLOCK)


def doc_width(docs: int) -> int:
    """Bytes a doc number takes in a word's postings in a segment of ``docs`` docs (numbered from 0): as few as
    hold its last one."""
    return 2 if docs <= 1 << 16 else 3 if docs <= 1 << 24 else 4


def dictionary(metas: bytes, records: bytes) -> bytes:
    """A segment's deflate dictionary made of its first sessions' ``metas`` and ``records`` (``DICT_META_BYTES``)."""
    lead = metas[-DICT_META_BYTES:]
    return lead + records[-(DICT_BYTES - len(lead)) :]


def deflater(zdict: bytes) -> Callable[[bytes, bytes], tuple[bytes, bytes]]:
    """What turns a session's meta and records into one raw deflate stream against the preset dictionary ``zdict``
    (none when empty), cut in two: the meta's part, flushed to a byte boundary less the flush's ``SYNC``, and the
    records' part.

    The dictionary is loaded once: each session is deflated by a copy of a compressor primed with it, the same
    bytes as a new compressor's, where a new one hashes the 32 KiB dictionary again.
    """
    primed = zlib.compressobj(RECORDS_LEVEL, zlib.DEFLATED, WBITS, zdict=zdict)

    def deflate(meta: bytes, records: bytes) -> tuple[bytes, bytes]:
        packer = primed.copy()
        lead = packer.compress(meta) + packer.flush(zlib.Z_SYNC_FLUSH)
        return lead[: -len(SYNC)], packer.compress(records) + packer.flush()

    return deflate


def stream_checks(meta: bytes, block: bytes) -> tuple[int, int]:
    """The CRC-32 of a session's meta part (``deflater``), and of its meta and records parts together: what a reader
    checks the deflated bytes against before inflating them, the meta's alone where it reads only the meta. (The
    deflated bytes, not the inflated: a snippet inflates a session only as far as its message, and with the
    dictionary checked too, the same deflated bytes inflate to the same bytes.)"""
    meta_crc = zlib.crc32(meta)
    return meta_crc, zlib.crc32(block, meta_crc)


def inflate(block: bytes, zdict: bytes) -> bytes:
    """A session's meta out of its part of the stream (``deflater``); zlib.error when damaged."""
    return zlib.decompressobj(WBITS, zdict=zdict).decompress(block)


class Inflating:
    """A session's records inflated as far as asked so far, and further from where it stopped when asked again:
    messages read one after another inflate their session's records once, where inflating them for each started
    over. The meta's part of the stream is inflated first, and its bytes left out."""

    __slots__ = ("_inflater", "_rest", "data")

    def __init__(self, meta: bytes, block: bytes, zdict: bytes) -> None:
        self._inflater = zlib.decompressobj(WBITS, zdict=zdict)
        self._inflater.decompress(meta + SYNC)
        self._rest = block
        self.data = b""

    def upto(self, size: int) -> bytes:
        """The records inflated as far as their first ``size`` bytes at least; zlib.error when damaged."""
        if size > len(self.data):
            self.data += self._inflater.decompress(self._rest, size - len(self.data))
            self._rest = self._inflater.unconsumed_tail
        return self.data

    def whole(self) -> bytes:
        """The records inflated to their end; zlib.error when damaged."""
        self.data += self._inflater.decompress(self._rest)
        self._rest = b""
        return self.data


class IndexUnreadable(Exception):
    """The index is missing, corrupt or of another format version."""


class IndexKeptOut(IndexUnreadable):
    """An index this deja must leave as it is, which a rebuild would not mend (or would destroy): its line says what
    the user must do, and every reader and writer says it rather than rebuilding."""


class IndexForbidden(IndexKeptOut):
    """This user may not read the index folder: its permissions need fixing; a rebuild could not write it either."""

    def __init__(self, directory: StrPath) -> None:
        folder, fix = forbidden_fix(directory)
        super().__init__(f"cannot read {folder}: permission denied; give your user access to it: {fix}")


def forbidden_fix(directory: StrPath) -> tuple[str, str]:
    """The folder that keeps this user from the index folder ``directory``, and the command that lets them in: the
    one that refuses (``regular_files.forbidden``), since a folder above deja's home that this user may not search
    (``XDG_CACHE_HOME`` at mode 000) hid the index, which was named with a chmod that cannot reach it; such a folder
    is given back alone (``access_fix`` without ``tree``: its other files are not deja's)."""
    from ..regular_files import forbidden

    folder = forbidden(directory) or oscalls.fspath(directory)
    return folder, access_fix(folder, tree=folder in (oscalls.fspath(directory), oscalls.dirname(directory)))


class IndexOtherFormat(IndexUnreadable):
    """The index was written by a deja of another index format (an upgrade, or a downgrade): nothing is wrong with
    it, this deja cannot read it; a refresh rebuilds one an older deja wrote (``IndexNewerFormat``: not a newer's)."""

    def __init__(self, path: str, version: int) -> None:
        #: Written by an older deja (a lower format number); False: by a newer one.
        self.older = version < FORMAT_VERSION
        said = f"{path} is index format {version}, this deja reads {FORMAT_VERSION}"
        if not self.older:
            said = (
                f"{path} is index format {version}, written by a newer deja (this one reads {FORMAT_VERSION}): "
                "upgrade deja, or set DEJA_HOME to another folder for this one"
            )
        super().__init__(said)


class IndexNewerFormat(IndexOtherFormat, IndexKeptOut):
    """The index was written by a newer deja: this one leaves it alone, since a rebuild would take it back to this
    format and the newer deja would rebuild it again on its next read, each undoing the other (trial49 F9)."""


def check_readable(directory: StrPath) -> None:
    """Raise IndexForbidden if ``directory`` exists and this user may not list it, or a folder above it that this user
    may not search hides it: said once, before a refresh would fail on its lock and a read on its manifest (or, for
    the hidden one, say deja's home does not exist)."""
    if oscalls.isdir(directory):
        if not oscalls.access(directory, oscalls.R_OK | oscalls.X_OK):
            raise IndexForbidden(directory)
        return
    from ..regular_files import forbidden  # (only where there is no index to see: a first run, or a hidden one)

    if forbidden(directory):
        raise IndexForbidden(directory)


# Tuples with named fields, made as ``collections.namedtuple`` makes them (each field a property reading its item)
# without importing ``collections`` (with ``keyword``, ``reprlib``, ``operator``: about 1 ms of a hook that opens the
# index and needs nothing else of it); nor typing's class form, which compiles each annotation at import. Built
# from one tuple (``Doc((ordinal, kind))``), by tuple's own constructor.


class Doc(tuple[int, int]):
    """What ``docs.bin`` says of one doc besides where its record is: its session's ordinal and its kind."""

    __slots__ = ()
    ordinal = property(itemgetter(0))
    kind = property(itemgetter(1))


class SessionKeys(tuple[int, int, int, float]):
    """What filters look at, read from ``sessions.idx`` without decoding the session: two name hashes and the
    source, and the time it was updated (seconds since the epoch; 0 for none)."""

    __slots__ = ()
    project_hash = property(itemgetter(0))
    dir_hash = property(itemgetter(1))
    source = property(itemgetter(2))
    updated = property(itemgetter(3))


def name_hash(name: str) -> int:
    """A stable 32-bit key for a project name or directory, compared case-insensitively."""
    return zlib.crc32(project_spelling(name).encode("utf-8")) if name else 0


def index_dir(home: Path) -> Path:
    """The index's folder in deja's home (``Index.open`` joins the same name to a home given as a string)."""
    return home / INDEX


def edited_paths(args: dict, project_dir: str) -> list[str]:
    """The file an edit tool call changed, as given and, when relative, joined to the project; each tidied
    (``posixpath.normpath``), so ``./alembic/env.py`` and ``alembic/../alembic/env.py`` are ``alembic/env.py``
    whether the index stores them or a hook asks for them."""
    path = args.get("path") or args.get("file_path") or args.get("target_file")
    if not isinstance(path, str) or not path.strip():
        return []
    path = path.strip()
    if project_dir and not path.startswith(("/", "\\")) and ":" not in path[:3]:
        return [oscalls.posix_normpath(path), oscalls.posix_normpath(project_dir.rstrip("/") + "/" + path)]
    return [oscalls.posix_normpath(path)]


def filed_paths(args: dict, project_dir: str) -> list[str]:
    """The paths an edit is filed under: its ``edited_paths``, and those inside ``project_dir`` again inside the folder
    its links lead to (``resolved_folder``, as projects are keyed): the editor keeps a folder as it was opened
    (``~/code/app``, ``~/code`` a link), cursor-agent as resolved, and either names the same file."""
    paths = edited_paths(args, project_dir)
    if not project_dir.startswith("/") or not paths:
        return paths
    folder = oscalls.posix_normpath(project_dir)
    real = resolved_folder(folder)
    if real == folder:
        return paths
    return paths + [real + p[len(folder) :] for p in paths if p.startswith(folder + "/")]


def asked_paths(path: str, project_dir: str) -> list[str]:
    """The paths to look a file up by, asked as ``path`` in ``project_dir`` (or none): as an edit naming it is filed
    (``edited_paths``), and where the links of its absolute path lead, as ``filed_paths`` files it from a linked
    project and cursor-agent names it (one ``realpath``: a hook asks this)."""
    found = edited_paths({"path": path}, project_dir)
    real = resolved_folder(found[-1]) if found and found[-1].startswith("/") else ""
    return [*found, real] if real and real not in found else found


def in_project(path: str, project_dir: str) -> str:
    """``path`` as a person reads it in ``project_dir``: relative to it when inside it, else as given. An agent
    names the files it edits absolutely, the editor relative to its workspace; shown side by side, one form reads."""
    folder = project_dir.rstrip("/") + "/"
    return path[len(folder) :] if project_dir and path.startswith(folder) and path != folder else path


class Codec(Record, frozen=True):
    """How a reader decodes the manifest, a session and a message, and what a damaged record raises."""

    #: The manifest's bytes and its path (for messages) -> the Manifest; raises IndexUnreadable.
    manifest: Callable[[bytes, str], Manifest]
    session: Callable[[bytes], SessionMeta]
    message: Callable[[bytes], Message]
    damage: tuple[type[Exception], ...]


def default_codec() -> Codec:
    """msgspec Structs: what every reader but a hook's uses."""
    from .records import STRUCTS

    return STRUCTS


def read_manifest(directory: StrPath, codec: Codec | None = None) -> Manifest:
    path = oscalls.join(directory, MANIFEST)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise IndexUnreadable(f"no index at {directory}") from None
    except PermissionError:
        raise IndexForbidden(directory) from None
    except OSError as exc:
        raise IndexUnreadable(f"cannot read {path}: {exc.strerror}") from None
    return (codec or default_codec()).manifest(data, path)


def check_version(version: object, path: str) -> None:
    """Raise IndexOtherFormat naming ``path`` unless ``version`` is this deja's format (IndexNewerFormat when a newer
    deja wrote it); IndexUnreadable, the manifest damaged, when no deja wrote that version: not a whole number, or
    past any plausible newer format (``NEWER_FORMATS``). Refused as newer, a damaged byte (format 4294967317)
    locked the home, ``--full`` included, and its line said to upgrade deja (review49c L3)."""
    if type(version) is not int or not 0 < version <= FORMAT_VERSION + NEWER_FORMATS:
        shown = repr(version)[:40]
        raise IndexUnreadable(f"{path} is damaged: its index format reads {shown}, which no deja writes")
    if version > FORMAT_VERSION:
        raise IndexNewerFormat(path, version)
    if version != FORMAT_VERSION:
        raise IndexOtherFormat(path, version)
