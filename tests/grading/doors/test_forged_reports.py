"""Weights in, never out (issue 15): a submission that answers questions wrongly and forges what its
kernel reports scores nothing on the tests it attacks, graded through the standalone door.

The forging submissions are built in ``tests/fixtures/forged_reports.py``. Each was worth points
against the old hidden tests, whose oracles were rebuilt from the weights the kernel reported. Both are
graded in one batch (two workers, about 20-40 s on a quiet 2-core machine).
"""

import nbformat
import pytest

from assignments.grading.sandbox.limits import Limits
from assignments.results.model import SubmissionResult
from tests.fixtures import batch, forged_reports

# One worker runs this module (`--dist loadgroup`): its module fixture grades the class once, not per worker.
pytestmark = [pytest.mark.course, pytest.mark.xdist_group("forged_reports")]

# Test names whose answer is wrong in the forged submission: each must fail, and did pass before.
MUST_FAIL = {
    "transformers": {
        "bert_gru_sentiment_tests": {
            "test_bert_frozen_head_learns",
            "test_matches_gru_oracle",
            "test_cached_features_path",
        },
        "predict_sentiment_tests": {"test_returns_probability", "test_eval_mode"},
        "mlm_step_tests": {"test_initial_loss_and_update", "test_two_steps_match_reference"},
    },
    "transfer_lm": {
        "transformer_model_tests": {
            "test_language_model_forward_matches_reference",
            "test_classifier_reads_last_real_position",
            "test_causal_and_uncertain_at_initialization",
        },
        "train_lm_tests": {"test_evaluate_lm_loss_and_perplexity"},
        "finetune_tests": {"test_predict_classes_matches_reference", "test_pretrained_classifier_accuracy"},
    },
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("forged")
    jobs = []
    for assignment in MUST_FAIL:
        path = root / f"{assignment}.ipynb"
        path.write_text(nbformat.writes(forged_reports.forged_submission(assignment)))
        jobs.append((assignment, None, assignment, str(path), batch.limits_dict(Limits())))
    return {label: SubmissionResult.from_dict(result) for label, result in batch.grade_all(jobs, workers=2).items()}


def test_fixture_attacks_the_questions_it_names():
    for assignment, attacked in forged_reports.ATTACKED.items():
        assert set(attacked) == set(MUST_FAIL[assignment]), f"{assignment}: fixture and test disagree"


@pytest.mark.parametrize("assignment", sorted(MUST_FAIL))
def test_forged_reports_earn_nothing_on_the_wrong_answers(graded, assignment):
    result = graded[assignment]
    assert result.status == "graded", f"{assignment}: the forged submission was not graded: {result.findings}"
    passed_wrongly = {}
    for grade_id, names in MUST_FAIL[assignment].items():
        question = result.question(grade_id)
        passed = {t.name.split("::")[-1] for t in question.tests if t.outcome == "passed"} & names
        if passed:
            passed_wrongly[grade_id] = sorted(passed)
    assert passed_wrongly == {}, f"{assignment}: tests passed although the answers are wrong and the reports forged"


@pytest.mark.parametrize("assignment", sorted(MUST_FAIL))
def test_attacked_questions_score_at_most_what_the_honest_parts_earn(graded, assignment):
    # On an attacked question only the tests of its honest parts can earn points.
    result = graded[assignment]
    over = {}
    for grade_id, names in MUST_FAIL[assignment].items():
        question = result.question(grade_id)
        wrong = sum(t.max_points for t in question.tests if t.name.split("::")[-1] in names)
        if (question.points or 0.0) > question.max_points - wrong + 1e-9:
            over[grade_id] = (question.points, question.max_points - wrong)
    assert over == {}, f"{assignment}: (score, most deserved) per attacked question"
