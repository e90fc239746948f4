"""The nbgrader door: what hidden-test regions call (``hidden_region``), the preprocessors
``nbgrader_config.py`` adds (``preprocessors``, ``feedback``, ``evidence``), running real nbgrader on a
class (``door``, with ``cli`` and the ``reaper`` that bounds each run), repairing damaged notebooks first
(``repair``), and the cross-check against the standalone door (``door.cross_check``)."""

from assignments.grading.public import public_names

PUBLIC = {
    "hidden_tests": "hidden_region",
    **dict.fromkeys(["HonestPoints", "InformativeVisibleChecks", "POINTS_MIME"], "preprocessors"),
    "HideHiddenTests": "feedback",
    **dict.fromkeys(["KeepEvidence", "ShowEvidence"], "evidence"),
    "repair_submission": "repair",
    **dict.fromkeys(["cross_check", "prepare_course"], "door"),
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
