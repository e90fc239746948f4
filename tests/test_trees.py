"""assignments/trees.py: the one walker and remover of student-shaped trees (issue #43, items 7 and 8).

Each runs under ``fixtures/deep.shallow_stack`` (Python 3.10/3.11's recursive walkers, emulated) on a
1,200-level tree, and never follows a link out of the tree."""

from __future__ import annotations

import os

from assignments import trees
from tests.fixtures.deep import DEPTH, deep_tree, shallow_stack


def test_walk_stops_at_its_depth_bound_and_says_where(tmp_path):
    root = deep_tree(tmp_path / "root", DEPTH, leaf="bottom.txt")
    try:
        with shallow_stack():
            walk = trees.walk([root], max_depth=10)
            depths = [entry.depth for entry in walk]
        assert depths == list(range(1, 11)), depths
        assert walk.too_deep == [str(root / "/".join(["d"] * 10))], walk.too_deep
        budget = trees.walk([root], max_depth=DEPTH + 5, max_entries=100)
        assert len(list(budget)) == 100 and budget.cut
    finally:
        trees.remove_tree(root)


def test_remove_tree_removes_1200_levels_and_nothing_a_link_points_to(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the grader's")
    root = deep_tree(tmp_path / "root", DEPTH, leaf="bottom.txt")
    (root / "d" / "link-to-outside").symlink_to(outside)
    (root / "file-link").symlink_to(outside / "keep.txt")
    with shallow_stack():
        removed = trees.remove_tree(root)
    assert not os.path.lexists(root) and removed == DEPTH + 4, removed  # folders, root, the leaf, two links
    assert (outside / "keep.txt").read_text() == "the grader's", "a link was followed out of the tree"
    assert trees.remove_tree(root) == 0, "a missing tree is no error"


def test_intake_reads_a_class_folder_beside_a_1200_deep_tree(tmp_path):
    from assignments.intake.archives import scan_folder

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada_hw.ipynb").write_text("{}")
    deep_tree(folder / "bob", DEPTH, leaf="bob_hw.ipynb")
    findings = []
    try:
        with shallow_stack():
            entries = scan_folder(folder, findings, max_entries=100, max_entry=2**20)
    finally:
        trees.remove_tree(folder / "bob")
    assert [name for name, _, _ in entries] == ["ada_hw.ipynb"], entries
    assert [f.code for f in findings] == ["unsafe-path"] and "levels deep" in findings[0].message, findings
