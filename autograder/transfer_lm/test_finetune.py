"""finetune_tests: predict_classes against the reference; a pre-trained classifier learns the task.

The held-out labels stay here: the student's code receives the held-out reviews only and returns
predictions, which are scored in the grader.
"""

import torch

from assignments.grading.checks import expect, expect_shape, question
from autograder.transfer_lm import synthetic
from autograder.transfer_lm.synthetic import causal_mask, reference_model

STAND_INS = ("generate_square_subsequent_mask", "PositionalEncoding", "Model", "load_pretrained_base")


@question("finetune_tests", points=1)
def test_predict_classes_matches_reference(student):
    # Vocabulary 19, nhid 12, 2 heads, 1 layer, 3 classes, dropout 0.3; 11 rows of 8, batches of 4.
    g = torch.Generator().manual_seed(17)
    inputs = torch.randint(1, 19, (11, 8), generator=g)
    lengths = torch.randint(1, 9, (11,), generator=g)
    for row in range(11):
        inputs[row, int(lengths[row]):] = 0
    # Weights in, never out: the grader chooses the weights (seeded, head scaled by 20 so the classes are
    # well separated) and the kernel loads them; a kernel that forges its report can match only by
    # returning the classes a correct predict_classes gives for these weights. With seed 21 the expected
    # classes are 0, 1, 2, 2, 0, 1, 2, 2, 0, 0, 2: no constant answer matches.
    reference = reference_model(19, 2, 12, 1, 3, seed=21)
    with torch.no_grad():
        for p in reference.head.parameters():
            p.mul_(20.0)
    state = {k: v.clone() for k, v in reference.state_dict().items()}
    out = student.run("model = Model(19, 2, 12, 1, 3, dropout=0.3)\n"
                      "model.load_state_dict(state)\n"
                      "model.train()\n"
                      "result = {'pred': predict_classes(model, inputs, lengths, batch_size=4)}",
                      stand_ins=STAND_INS, inputs=inputs, lengths=lengths, state=state)
    pred = expect_shape(out["pred"], (11,), "predict_classes for 11 reviews")
    expect(not pred.dtype.is_floating_point, f"predictions should be integer class ids; got dtype {pred.dtype}")
    with torch.no_grad():
        expected = reference(inputs, causal_mask(8), lengths).argmax(dim=-1)
    wrong = int((pred.long() != expected).sum())
    expect(wrong == 0, f"{wrong} of 11 predictions differ from the arg-max class of the model's scores at the "
                       f"last real token (evaluation mode, causal mask)")


@question("finetune_tests", points=2)
def test_pretrained_classifier_accuracy(student):
    # The grader pre-trains a tiny language model on unlabelled synthetic reviews (vocabulary 30, nhid 32,
    # 2 heads, 1 layer) with the reference code; the student's train_classifier then fine-tunes a
    # 2-class Model built on that base (128 labelled one-sentence reviews, 5 epochs, Adam lr 2e-3) and
    # predict_classes labels 300 held-out reviews. Labels of those 300 never leave the grader.
    # Calibration (reference, seeds 0..19): accuracy 1.000 in every run. Bar: 0.85 (255 of 300).
    train_x, train_len, train_y = synthetic.labelled_reviews(128, seed=6)
    test_x, test_len, test_y = synthetic.labelled_reviews(300, seed=7)
    out = student.run(synthetic.single_threaded(
                      "model = Model(ntoken, 2, 32, 1, 2, dropout=0.0)\n"
                      "load_pretrained_base(model, lm_state)\n"
                      "optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)\n"
                      "for epoch in range(5):\n"
                      "    train_classifier(model, train_x, train_len, train_y, optimizer, batch_size=16, progress=False)\n"
                      "result = predict_classes(model, test_x, test_len)"),
                      stand_ins=STAND_INS, ntoken=synthetic.REVIEW_NTOKEN, lm_state=synthetic.pretrained_review_lm(),
                      train_x=train_x, train_len=train_len, train_y=train_y, test_x=test_x, test_len=test_len,
                      timeout=30)
    pred = expect_shape(out, (300,), "predict_classes for 300 held-out reviews")
    accuracy = (pred.long() == test_y).float().mean().item()
    expect(accuracy >= 0.85, f"after fine-tuning with train_classifier the held-out accuracy should reach 0.85; "
                             f"got {accuracy:.3f}")
