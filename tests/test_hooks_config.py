"""``core/config.py``: the variable, else the config file, else the default, for each setting every entrypoint reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from deja.core import config, paths, redact


@pytest.fixture
def config_file(fake_home: Path) -> Path:
    path = fake_home / ".config" / "deja" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    config.forget_file()


@pytest.mark.parametrize(
    "variable, raw, key, value",
    [
        ("DEJA_NO_REDACT", "1", "redact", False),
        ("DEJA_NO_REDACT", "0", "redact", True),
        ("DEJA_INCLUDE_SUBAGENTS", "1", "include_subagents", True),
        ("DEJA_INCLUDE_SUBAGENTS", "yes", "include_subagents", True),  # (it was off: only "1" was on, trialN F13)
        ("DEJA_NO_REDACT", "true", "redact", False),
        ("DEJA_TRACE", "1", "trace", True),
        ("DEJA_RECALL", " Aggressive ", "recall", "aggressive"),
    ],
)
def test_a_variable_means_what_it_says_and_beats_the_file(
    config_file: Path, monkeypatch: pytest.MonkeyPatch, variable: str, raw: str, key: str, value: object
) -> None:
    write(config_file, 'redact = true\ninclude_subagents = true\ntrace = false\nrecall = "off"\n')
    monkeypatch.setenv(variable, raw)
    assert config.resolve(key) == config.Resolved(value, "env")


def test_the_file_gives_what_no_variable_sets_and_paths_and_redaction_follow_it(
    config_file: Path, tmp_path: Path
) -> None:
    write(config_file, f'home = "{tmp_path / "idx"}"\nredact = false\ncursor_cli_root = "~/agent"\n')
    assert config.resolve("home") == config.Resolved(str(tmp_path / "idx"), "file")
    assert paths.deja_home() == tmp_path / "idx"
    assert paths.cli_roots() == [Path.home() / "agent"]
    assert redact.redact("password=hunter22") == "password=hunter22"
    assert config.resolve("recall") == config.Resolved("safe", "default")


def test_a_bad_value_or_a_broken_file_falls_back_to_the_default_and_says_why(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(config_file, 'recall = "loud"\n')
    resolved = config.resolve("recall")
    assert resolved.value == "safe" and resolved.source == "default" and "not 'loud'" in resolved.problem
    monkeypatch.setenv("DEJA_RECALL", "loud")
    assert "DEJA_RECALL: recall takes one of" in config.resolve("recall").problem
    write(config_file, "recall = \n")
    table, error = config.read_file()
    assert table == {} and "is not valid TOML" in error
    assert redact.redact("password=hunter22") == "password=[redacted:secret]"


def test_set_and_unset_keep_the_users_comments_and_lines(config_file: Path) -> None:
    write(config_file, '# mine: quiet at work\nrecall = "off"   # until the demo\n\n# paths\nhome = "/data/deja"\n')
    config.set_value("recall", "safe")
    config.set_value("redact", "false")
    assert config_file.read_text() == (
        '# mine: quiet at work\nrecall = "safe"\n\n# paths\nhome = "/data/deja"\nredact = false\n'
    )
    assert config.unset_value("home")
    assert config_file.read_text() == '# mine: quiet at work\nrecall = "safe"\n\n# paths\nredact = false\n'
    assert config.read_file() == ({"recall": "safe", "redact": False}, "")


def test_set_value_keeps_other_keys_and_writes_a_private_file(config_file: Path) -> None:
    write(config_file, 'recall = "off"\n')
    assert config.set_value("redact", "no") is False
    assert config.read_file() == ({"recall": "off", "redact": False}, "")
    assert config_file.stat().st_mode & 0o777 == 0o600
    with pytest.raises(config.ConfigError, match="unknown key 'colour'"):
        config.set_value("colour", "blue")
