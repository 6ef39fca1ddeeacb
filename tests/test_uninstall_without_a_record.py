"""``deja uninstall`` after ``installed.json`` was deleted leaves no empty ``~/.config/deja`` behind (trial44 F8):
only deja writes in that folder, so an empty one is what deja made. One holding a ``config.toml`` stays."""

from __future__ import annotations

from pathlib import Path

from test_edited_deja_hooks import _deja, env  # noqa: F401  (the fixture: a fake home and deja's console script)


def test_an_emptied_config_folder_goes(env: dict[str, str]) -> None:  # noqa: F811
    config = Path(env["HOME"]) / ".config" / "deja"
    _deja(env, "install", "cursor-auto")
    (config / "installed.json").unlink()

    gone = _deja(env, "uninstall", "cursor-auto")

    assert f"removed {config}\n" in gone
    assert not config.exists()


def test_a_config_folder_holding_settings_stays(env: dict[str, str]) -> None:  # noqa: F811
    config = Path(env["HOME"]) / ".config" / "deja"
    _deja(env, "install", "cursor-auto")
    _deja(env, "config", "set", "recall", "aggressive")
    (config / "installed.json").unlink()

    _deja(env, "uninstall", "cursor-auto")

    assert [path.name for path in config.iterdir()] == ["config.toml"]


def test_an_empty_config_folder_with_nothing_of_deja_installed_stays(env: dict[str, str]) -> None:  # noqa: F811
    """review44d L2: with nothing installed, ``uninstall`` removed a ``~/.config/deja`` the user had just made."""
    config = Path(env["HOME"]) / ".config" / "deja"
    config.mkdir(parents=True)

    said = _deja(env, "uninstall", "claude")

    assert said == "claude: nothing of deja's to remove\n"
    assert config.is_dir()
