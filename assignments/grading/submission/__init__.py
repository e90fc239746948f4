"""A submitted file made ready to grade: read defensively (``load``), checked to be this assignment's and
given back the release's locked and test cells (``restore``, after ``recover`` found cells whose
metadata was lost), audited (``audit``) and checked for forbidden shortcuts (``shortcuts``). ``prepare``
(in ``preparation``) runs those steps in that order, recovering once, for every consumer, and reads the
written answers' evidence cells as submitted (``evidence``)."""

from assignments.grading.public import public_names

PUBLIC = {
    **dict.fromkeys(["prepare", "Prepared"], "preparation"),
    **dict.fromkeys(["load_submission", "default_template"], "load"),
    "audit_source": "audit",  # not audit(): the name is its module's (prepare runs it)
    **dict.fromkeys(["check_assignment", "switch_names"], "restore"),
    **dict.fromkeys(["check_restored", "declared_resolves"], "shortcuts"),
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
