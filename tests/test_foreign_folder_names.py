"""A project whose folder name is not UTF-8 (made on another system: ``caf\\xe9-app`` in Latin-1), or is spelt
decomposed (macOS keeps ``café`` as ``cafe`` and a combining accent), is one project deja lists, searches and
recalls like any other.

Before, Python read the Latin-1 name with an unpaired surrogate that no UTF-8 writer takes: the first build that
met a transcript-only chat there stopped with a UnicodeEncodeError, and so did every ``deja`` command and the
session-end ingest after it (trialN F0). A decomposed name and a composed one were two projects (trialN F9), then one project spelt two ways in its
rows (trial10 F2).
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

from harness import hook_prompt, run_deja

from deja.core.writers.cursor_agent import assistant_turn, tool_use, transcript_path, user_turn, write_transcript
from deja.core.writers.ide import ComposerHeader, composer_data, write_state_vscdb, write_workspace


def test_a_folder_named_in_another_encoding_is_indexed_listed_and_recalled(tmp_path: Path, cli_root: Path) -> None:
    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9-app")
    os.mkdir(folder)
    (tmp_path / "api").mkdir()
    chat = [
        user_turn("why is the tokenizer so slow on long inputs"),
        assistant_turn("A quadratic loop in the tokenizer's lookahead.", tool_use("Shell", {"command": "pytest -x"})),
    ]
    write_transcript(transcript_path(cli_root, folder, "c-latin1"), chat)
    write_transcript(transcript_path(cli_root, str(tmp_path / "api"), "c-api"), [user_turn("why is the api slow"), assistant_turn("An N+1 query.")])  # fmt: skip
    shown = f"{tmp_path}/caf\ufffd-app"  # as Cursor writes the folder in its payloads
    indexed = run_deja("index")
    assert indexed.returncode == 0 and "2 sessions" in indexed.stdout, indexed.stderr
    listed = json.loads(run_deja("sessions", "--json").stdout)["sessions"]
    assert {s["id"]: s["project_dir"] for s in listed} == {"c-latin1": shown, "c-api": str(tmp_path / "api")}
    here = Path(folder)
    assert run_deja("sessions", "--project", ".", cwd=here).stdout.split()[0] == "c-latin1"
    found = run_deja("search", "tokenizer slow", cwd=here)
    assert found.returncode == 0 and "caf\ufffd-app" in found.stdout, found.stderr
    how = run_deja("how", "pytest", cwd=here)
    assert how.returncode == 0 and f"how 'pytest' ran in {shown}, newest first:" in how.stdout, how.stderr
    assert "last session here: why is the tokenizer so slow" in run_deja("wip", cwd=here).stdout
    env = {**os.environ}
    assert "quadratic loop" in hook_prompt(env, "the tokenizer is slow on long inputs again", shown)


def test_a_decomposed_folder_name_and_a_composed_one_are_one_project(tmp_path: Path, cli_root: Path) -> None:
    decomposed = tmp_path / unicodedata.normalize("NFD", "café-app")
    decomposed.mkdir()
    write_transcript(
        transcript_path(cli_root, str(decomposed), "c-nfd"),
        [user_turn("why does the cache miss after a deploy"), assistant_turn("The cache key holds the build id.")],
    )
    assert run_deja("index").returncode == 0
    composed = str(tmp_path / unicodedata.normalize("NFC", "café-app"))
    listed = run_deja("sessions", "--project", composed)
    assert listed.returncode == 0 and listed.stdout.split()[0] == "c-nfd", listed.stderr
    assert "cache key holds the build id" in hook_prompt({**os.environ}, "the cache misses after a deploy", composed)


def test_a_project_name_typed_without_its_accents_is_that_project(tmp_path: Path, cli_root: Path) -> None:
    """``--project "naive cafe"`` is ``naïve café`` (spelt decomposed on disk), as search reads words without their
    accents; it found nothing (trial17). A name no folder spells so still finds nothing."""
    for name, chat in (("naïve café", "c-cafe"), ("api", "c-api")):
        folder = tmp_path / unicodedata.normalize("NFD", name)
        folder.mkdir()
        write_transcript(transcript_path(cli_root, str(folder), chat), [user_turn(f"why does {chat} fail"), assistant_turn("A stale key.")])  # fmt: skip
    assert run_deja("index").returncode == 0
    for typed in ("naive cafe", "Naive Café"):
        listed = run_deja("sessions", "--project", typed)
        assert listed.returncode == 0 and [row.split()[0] for row in listed.stdout.splitlines()] == ["c-cafe"], listed
        found = run_deja("search", "fail", "--project", typed)
        assert "c-api · " not in found.stdout and "c-cafe · " in found.stdout, found.stdout
    assert run_deja("sessions", "--project", "naive").stderr.startswith("deja: No session of project 'naive' is")


def test_blame_and_the_mcp_work_tool_in_a_folder_named_in_another_encoding(tmp_path: Path, cli_root: Path) -> None:
    """``deja blame src/export.py`` there found no edit unless the path was typed with U+FFFD, and the MCP ``work``
    tool (``how`` with ``project: "."``, ``blame`` of a relative path) stopped on a UnicodeEncodeError (trial10 F6,
    F10): the index spells the folder readable, the file is read where the disk has it."""
    from deja.core.index import Index
    from deja.interfaces.mcp_server import work_answer

    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9-legacy")
    os.makedirs(os.path.join(folder, "src"))
    with open(os.path.join(folder, "src", "export.py"), "w") as handle:
        handle.write("def export():\n    return rows\n")
    shown = f"{tmp_path}/caf\ufffd-legacy"  # as cursor-agent (Node) writes the folder in its transcripts
    edit = tool_use("StrReplace", {"path": f"{shown}/src/export.py", "old_string": "x", "new_string": "return rows"})
    chat = [
        user_turn("the legacy invoice export drops rows"),
        assistant_turn("Returning the rows.", edit, tool_use("Shell", {"command": "make export"})),
    ]
    write_transcript(transcript_path(cli_root, folder, "c-legacy"), chat)
    assert run_deja("index").returncode == 0
    blamed = run_deja("blame", "src/export.py:2", cwd=Path(folder))
    assert blamed.returncode == 0 and "c-legacy" in blamed.stdout and "line 2: return rows" in blamed.stdout, (
        blamed.stdout + blamed.stderr
    )
    as_shown = run_deja("blame", f"{shown}/src/export.py:2")  # the spelling Cursor and deja give (review11 R4)
    assert as_shown.returncode == 0 and "line 2: return rows" in as_shown.stdout, as_shown.stdout + as_shown.stderr
    exported = run_deja("export", "--project", folder, "-o", str(tmp_path / "out"))  # the folder as a shell types it
    assert exported.returncode == 0, exported.stderr
    # (the page names the project by its folder's name, readable as the index spells it: review58d F4)
    assert (tmp_path / "out" / "index.md").read_text(encoding="utf-8").startswith("# deja: caf\ufffd-legacy\n")
    index = Index.open(tmp_path / "deja")
    previous = os.getcwd()
    os.chdir(folder)  # the server runs where Cursor started it: in the project's folder
    try:
        how, _ = work_answer(index, "how", "make", ".")
        blame, _ = work_answer(index, "blame", "src/export.py", ".")
    finally:
        os.chdir(previous)
    assert how.startswith(f"how 'make' ran in {shown}") and "make export" in how, how
    assert f"{shown}/src/export.py" in blame and "c-legacy" in blame, blame


def test_text_spelt_decomposed_is_found_by_a_query_typed_composed_or_unaccented(tmp_path: Path, cli_root: Path) -> None:
    """A message spelt NFD (a letter and a combining accent, as text copied from macOS file names is) was tokens
    split at each mark: ``défilement`` typed on a keyboard, or ``defilement``, found nothing, and the NFD spelling
    typed found unrelated sessions through the pieces (trial10 F9)."""
    asked = unicodedata.normalize("NFD", "Hélène a réparé le défilement du tableau des dépenses")
    for chat_id, text in (("c-nfd", asked), ("c-other", "le tableau de bord des ventes est lent")):
        folder = tmp_path / chat_id
        folder.mkdir()
        write_transcript(transcript_path(cli_root, str(folder), chat_id), [user_turn(text), assistant_turn("Oui.")])
    assert run_deja("index").returncode == 0
    for query in ("défilement", "defilement", "Hélène", unicodedata.normalize("NFD", "dépenses défilement")):
        found = json.loads(run_deja("search", query, "--json").stdout)["hits"]
        assert [hit["session_id"] for hit in found] == ["c-nfd"], (query, found)
    exact = json.loads(run_deja("search", '"défilement du tableau"', "--json").stdout)  # a phrase (trial11 F5)
    assert [hit["session_id"] for hit in exact["hits"]] == ["c-nfd"] and not exact.get("notice"), exact
    for typed in ("défilement", unicodedata.normalize("NFD", "défilement")):  # (trial11 F5, review14 R14-2)
        pattern = json.loads(run_deja("search", "tableau", "--re", typed, "--json").stdout)
        assert [hit["session_id"] for hit in pattern["hits"]] == ["c-nfd"], (typed, pattern)


def test_words_of_scripts_written_with_marks_are_whole_words(tmp_path: Path, cli_root: Path) -> None:
    """Hindi's vowel signs, Hebrew's points and Arabic's vowels are combining marks that composing leaves as they
    are: each cut a word into letters, so ``नमस्ते`` found an unrelated Hindi chat through a lone ``त``, and ``שלום``
    typed unpointed, as Hebrew is, found nothing of a chat that wrote it pointed (review11 R7). A snippet shows the
    word, a phrase typed unpointed is an exact match, and Thai, written without spaces, is still cut at its marks,
    which is how a word inside a sentence is found (review15 F1-F3)."""
    filler = "lorem ipsum dolor sit amet " * 20
    chats = {
        "c-hi": "नमस्ते दुनिया, सर्वर फिर से चालू करो",
        "c-hi-other": "यह नया दस्तावेज़ है",
        "c-he": f"{filler} והשרת אמר שָׁלוֹם עוֹלָם ונפל",
        "c-ar": "مَرْحَبًا، الخادم متوقف",
        "c-th": "สวัสดีครับ เซิร์ฟเวอร์ล่มอีกแล้ว",
        "c-jv": "ꦱꦼꦂꦮꦼꦂꦩꦠꦶꦩꦼꦤꦺꦃ ꦢꦠꦧꦺꦱ꧀ꦲꦺꦴꦫꦺꦴꦗꦭꦤ꧀",  # (Javanese, unspaced too: review16 R16-2)
    }
    for chat_id, text in chats.items():
        folder = tmp_path / chat_id
        folder.mkdir()
        write_transcript(transcript_path(cli_root, str(folder), chat_id), [user_turn(text), assistant_turn("OK.")])
    assert run_deja("index").returncode == 0
    queries = [
        ("नमस्ते", "c-hi"),
        ("सर्वर", "c-hi"),
        ("שלום", "c-he"),
        ("שָׁלוֹם", "c-he"),
        ("مرحبا", "c-ar"),
        ("ครับ", "c-th"),
        ("ꦩꦠꦶ", "c-jv"),
    ]
    for query, wanted in queries:
        found = json.loads(run_deja("search", query, "--json").stdout)["hits"]
        assert [hit["session_id"] for hit in found] == [wanted], (query, found)
    shown = json.loads(run_deja("search", "שלום", "--json").stdout)["hits"][0]["snippets"][0]["text"]
    assert "אמר שָׁלוֹם עוֹלָם" in shown, shown
    phrase = json.loads(run_deja("search", '"שלום עולם"', "--json").stdout)
    assert [hit["session_id"] for hit in phrase["hits"]] == ["c-he"] and not phrase.get("notice"), phrase


def test_a_decomposed_folder_is_one_row_and_one_spelling_whichever_store_named_it(
    tmp_path: Path, cli_root: Path
) -> None:
    """cursor-agent names the folder as the disk spells it (NFD), the editor's workspace.json composed (NFC): one
    `deja stats` row and one `project_dir`, the disk's, which `cd` takes (trial10 F2: two rows, two spellings)."""
    decomposed = tmp_path / unicodedata.normalize("NFD", "crème-brûlée")
    decomposed.mkdir()
    composed = unicodedata.normalize("NFC", str(decomposed))
    write_transcript(
        transcript_path(cli_root, str(decomposed), "c-nfd"),
        [user_turn("why does the login form reset"), assistant_turn("The form key changes on each render.")],
    )
    user = tmp_path / "no-ide"
    write_workspace(user, "ws-nfc", folder=composed)
    write_state_vscdb(
        user / "globalStorage" / "state.vscdb",
        composers={"e-nfc": composer_data("e-nfc", [("u", 1), ("a", 2)], created_at=1784278800000, name="login")},
        bubbles={"e-nfc": {"u": {"type": 1, "text": "login form resets"}, "a": {"type": 2, "text": "Fixed."}}},
        composer_headers=[ComposerHeader("e-nfc", workspace_id="ws-nfc")],
    )
    assert run_deja("index").returncode == 0
    listed = json.loads(run_deja("sessions", "--json").stdout)["sessions"]
    assert {s["id"]: s["project_dir"] for s in listed} == {"c-nfd": str(decomposed), "e-nfc": str(decomposed)}
    projects = json.loads(run_deja("stats", "--json").stdout)["projects"]
    assert list(projects) == [decomposed.name] and projects[decomposed.name]["sessions"] == 2
    stats = run_deja("stats").stdout
    assert stats.count("crème-brûlée") + stats.count(decomposed.name) == 1, stats
