"""The lazy public faces (``assignments/grading/public.py``): each folder's package gives every name in its
``PUBLIC`` map, the very object its module defines, refuses any other name with AttributeError, and imports
a module only when one of its names is asked for."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import assignments.grading
from assignments.grading.public import public_names


def faces() -> list[str]:
    """Every package of the engine that declares a public face."""
    names = [
        info.name for info in pkgutil.walk_packages(assignments.grading.__path__, "assignments.grading.") if info.ispkg
    ]
    return [name for name in names if hasattr(importlib.import_module(name), "PUBLIC")]


def test_the_folders_with_a_public_face():
    assert set(faces()) >= {
        f"assignments.grading.{folder}" for folder in ["testkit", "submission", "sandbox", "doors", "doors.nbgrader"]
    }


@pytest.mark.parametrize("package", faces())
def test_every_public_name_is_its_modules_own_object(package):
    face = importlib.import_module(package)
    assert face.__all__ == sorted(face.PUBLIC)
    for name, module in face.PUBLIC.items():
        assert getattr(face, name) is getattr(importlib.import_module(f"{package}.{module}"), name), name


@pytest.mark.parametrize("package", faces())
def test_a_name_outside_the_public_map_is_an_attribute_error(package):
    face = importlib.import_module(package)
    with pytest.raises(AttributeError, match="no_such_name"):
        face.no_such_name  # noqa: B018 - the lookup is what is tested
    assert not hasattr(face, "no_such_name")


def test_public_names_reads_its_map_and_nothing_else():
    getter = public_names("json", {"dumps": "decoder"})  # any module path: the map says where a name lives
    with pytest.raises(AttributeError, match="'json' has no attribute 'loads'"):
        getter("loads")
    with pytest.raises(AttributeError):  # json.decoder has no dumps: the map is trusted, not searched
        getter("dumps")
    assert (
        public_names("json", {"JSONDecoder": "decoder"})("JSONDecoder")
        is importlib.import_module("json.decoder").JSONDecoder
    )


def test_a_face_imports_only_the_module_of_the_name_asked_for():
    code = (
        "import sys; from assignments.grading.sandbox import Limits; "
        "from assignments.grading import testkit; "
        "print(sorted(m for m in sys.modules if m.startswith('assignments.grading') or m == 'torch'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [
        "['assignments.grading',",
        "'assignments.grading.public',",
        "'assignments.grading.sandbox',",
        "'assignments.grading.sandbox.limits',",
        "'assignments.grading.testkit']",
    ], done.stdout
