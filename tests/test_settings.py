"""``[tool.course]`` has one schema (``config.SETTINGS``), and the settings reference is generated from it:
so the schema must name every key the course's ``pyproject.toml`` sets and every key the package names in
its messages, with the defaults its readers apply, and each entry's reader must still read that key."""

from __future__ import annotations

import re
from dataclasses import fields

from assignments import settings as config
from assignments.course import REPO
from assignments.exports import adjust, canvas

# "<table> key" as the package's messages name a setting: "[tool.course.canvas] late_policy", "[tool.course] term"
MENTION = re.compile(r"\[tool\.course((?:\.[a-z_]+)*)\](?: +([a-z_]+))?")


def declared(key: str) -> bool:
    """Whether ``key`` (dotted) is a setting, a table holding settings, or an entry of a per-assignment table."""
    keys = [entry.key for entry in config.SETTINGS]
    patterns = [re.escape(k).replace(re.escape("<assignment>"), r"[a-z_0-9]+") for k in keys]
    return any(re.fullmatch(p, key) or p.startswith(re.escape(key) + r"\.") for p in patterns)


def flattened(table: dict, prefix: str = "") -> list[str]:
    keys = []
    for name, value in table.items():
        key = f"{prefix}{name}"
        keys += flattened(value, key + ".") if isinstance(value, dict) and not declared(key) else [key]
    return keys


def test_every_key_the_course_sets_is_declared():
    course = config.read_toml(REPO / "pyproject.toml")["tool"]["course"]
    undeclared = [key for key in flattened(course) if not declared(key)]
    assert not undeclared, f"pyproject.toml sets {undeclared}, which assignments/settings.py SETTINGS does not declare"


def test_every_setting_the_package_names_is_declared():
    """A message naming "[tool.course.canvas] late_policy" points the instructor at a key: it must be in the
    schema (a key with an underscore, or a table; plain words after a table are prose)."""
    undeclared = set()
    for path in (REPO / "assignments").rglob("*.py"):
        for table, word in MENTION.findall(path.read_text(encoding="utf-8")):
            table = table.lstrip(".")
            if table and not declared(table):
                undeclared.add((path.name, table))
            if word and "_" in word:
                key = f"{table}.{word}" if table else word
                if not declared(key):
                    undeclared.add((path.name, key))
    assert not undeclared, f"settings named in the package but not declared in config.SETTINGS: {sorted(undeclared)}"


def test_each_setting_is_read_where_the_schema_says():
    for entry in config.SETTINGS:
        reader = (REPO / entry.read_by).read_text(encoding="utf-8")
        last = [part for part in entry.key.split(".") if part != "<assignment>"][-1]
        assert last in reader, f"{entry.read_by} no longer mentions {last!r}: fix SETTINGS' entry for {entry.key}"
        assert entry.meaning.strip(), f"{entry.key} has no meaning"
        assert entry.default is None or not entry.choices or entry.default in entry.choices, entry.key


def test_the_defaults_are_what_the_readers_apply(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "empty"\n')
    read = config.Settings.read(tmp_path)
    assert read.term == config.setting("term").default
    assert read.gradescope_test_visibility == config.setting("gradescope_test_visibility").default
    assert read.canvas.late_policy == config.setting("canvas.late_policy").default
    assert read.canvas.ungraded_written == config.setting("canvas.ungraded_written").default
    assert read.canvas.url == config.setting("canvas.url").default
    assert read.canvas.course_id == config.setting("canvas.course_id").default
    assert read.colab_url == config.setting("colab_url").default
    assert read.excused("transformers") == ()
    assert read.pythons == ()
    policy = read.late_policy
    for field in fields(adjust.LatePolicy):
        assert getattr(policy, field.name) == config.setting(f"late_policy.{field.name}").default, field.name
    assert {f"late_policy.{f.name}" for f in fields(adjust.LatePolicy)} == {
        e.key for e in config.SETTINGS if e.key.startswith("late_policy.")
    }, "LatePolicy's keys and the schema's late_policy keys differ"
    assert canvas.UNGRADED_CHOICES == config.setting("canvas.ungraded_written").choices
    assert config.setting("canvas.ungraded_written").default in canvas.UNGRADED_CHOICES


def test_an_undeclared_key_is_named_in_the_error():
    try:
        config.setting("no_such_key")
    except KeyError as error:
        assert "no_such_key" in str(error) and "SETTINGS" in str(error)
    else:
        raise AssertionError("an undeclared key should raise KeyError")
