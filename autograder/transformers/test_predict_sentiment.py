"""Hidden tests: predict_sentiment, with a tokenizer, BERT and head weights all chosen by the grader."""

import math

import torch

from assignments.grading.testkit import behaviour, expect, question
from autograder.transformers.oracles import reference

# The grader chooses everything predict_sentiment's answer depends on: a word-level tokenizer over its own
# vocabulary (real `tokenizers`/`transformers` classes, built from the same source text in both processes),
# BERT's weights and the head's weights. The kernel reports only probabilities.
# The tokenizer behaves like the BERT tokenizer the notebook gives students: its special tokens ([PAD],
# [UNK], [CLS], [SEP], [MASK]) have ids and names, calling it wraps a sentence in [CLS] ... [SEP] and returns
# input_ids, token_type_ids and attention_mask, and tokenize / convert_tokens_to_ids / cls_token_id /
# sep_token_id work as they do on BertTokenizerFast.
TOKENIZER = (
    "from tokenizers import Tokenizer, models, pre_tokenizers, processors\n"
    "from transformers import PreTrainedTokenizerFast\n"
    "core = Tokenizer(models.WordLevel(vocab, unk_token='[UNK]'))\n"
    "core.pre_tokenizer = pre_tokenizers.Whitespace()\n"
    "core.post_processor = processors.TemplateProcessing(\n"
    "    single='[CLS] $A [SEP]', pair='[CLS] $A [SEP] $B:1 [SEP]:1',\n"
    "    special_tokens=[('[CLS]', vocab['[CLS]']), ('[SEP]', vocab['[SEP]'])])\n"
    "tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token='[UNK]', pad_token='[PAD]',\n"
    "                                    cls_token='[CLS]', sep_token='[SEP]', mask_token='[MASK]',\n"
    "                                    model_input_names=['input_ids', 'token_type_ids', 'attention_mask'])\n"
)
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PREDICT_BERT = dict(
    hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=20, max_position_embeddings=64
)
PREDICT = (
    TOKENIZER + "from transformers import BertConfig, BertModel\n"
    "bert = BertModel(BertConfig(**config))\n"
    "bert.load_state_dict(bert_state)\n"
    "model = BERTGRUSentiment(bert, 6, 1, 1, True, 0.5)\n"
    "model.load_state_dict(head_state, strict=False)\n"
    "model.train()\n"
    "probabilities = [predict_sentiment(model, tokenizer, s) for s in sentences]\n"
    "again = predict_sentiment(model, tokenizer, sentences[0])\n"
    "result = {'p': probabilities, 'again': again}"
)
SENTENCES = ["this film is great", "a dull and boring movie with a weak plot", "the acting"]


def predict_problem(bias, specials_first=True):
    """(inputs for PREDICT, expected probabilities), every weight and token id chosen here. The special tokens
    take the first ids, as in BERT's vocabularies, or the last ones, so no id may be taken for granted."""
    from transformers import BertConfig, BertModel

    ref = reference()
    words = sorted({w for s in SENTENCES for w in s.split()})
    order = SPECIAL + words if specials_first else words + SPECIAL
    vocab = {token: i for i, token in enumerate(order)}
    namespace = {"vocab": vocab}
    exec(TOKENIZER, namespace)
    config = dict(PREDICT_BERT, vocab_size=len(vocab))
    torch.manual_seed(17)
    model = ref.BERTGRUSentiment(BertModel(BertConfig(**config)), 6, 1, 1, True, 0.5)
    with torch.no_grad():
        model.out.bias.fill_(bias)
    bert_state = {k: v.clone() for k, v in model.bert.state_dict().items()}
    head_state = {k: v.clone() for k, v in model.state_dict().items() if not k.startswith("bert.")}
    model.eval()
    expected = []
    with torch.no_grad():
        for sentence in SENTENCES:
            ids = torch.tensor(namespace["tokenizer"](sentence)["input_ids"])[None]
            expected.append(torch.sigmoid(model(input_ids=ids, attention_mask=torch.ones_like(ids))).item())
    inputs = dict(vocab=vocab, config=config, bert_state=bert_state, head_state=head_state, sentences=SENTENCES)
    return inputs, expected


@question("predict_sentiment_tests")
@behaviour("predict_sentiment", "a probability: sigmoid of the logit", mutant="predict_returns_logit")
@behaviour(
    "predict_sentiment",
    "tokenization with [CLS] and [SEP], as the notebook's BERT tokenizer gives",
    mutant="predict_without_special_tokens",
)
@behaviour(
    "predict_sentiment",
    "the model gets input_ids and attention_mask, not the tokenizer's token_type_ids",
    mutant="predict_passes_every_encoding",
)
def test_returns_probability(student):
    for bias in (1.5, -2.0):
        inputs, expected = predict_problem(bias)
        out = student.run(PREDICT, stand_ins=("BERTGRUSentiment",), **inputs)
        got = out["p"]
        expect(all(isinstance(p, float) for p in got), "predict_sentiment must return a Python float")
        outside = sum(not 0.0 <= p <= 1.0 for p in got)
        expect(
            not outside,
            f"predict_sentiment must return a probability in [0, 1] (apply a sigmoid to the logit); "
            f"{outside} of {len(got)} predictions were outside",
        )
        worst = max(abs(a - b) for a, b in zip(got, expected))
        expect(
            len(got) == len(expected) and worst < 1e-5,
            f"predicted probabilities differ from the reference by up to {worst:.3g} (the model in eval mode, "
            f"the sentence tokenized by calling the tokenizer, which adds [CLS] and [SEP], then a sigmoid)",
        )


@question("predict_sentiment_tests")
@behaviour("predict_sentiment", "eval mode", mutant="predict_without_eval")
@behaviour(
    "predict_sentiment",
    "randomness: no dropout draws in a prediction (eval mode), so the same sentence gives the same answer",
    mutant="predict_without_eval",
    kind="randomness",
)
def test_eval_mode(student):
    # Only the mode, whatever the tokenization: the model arrives in training mode (dropout 0.5 before the
    # output layer), and the grader gives it two heads that differ only in the output bias (0.3 and -0.9).
    # In eval mode the logit is out(final state) with no dropout after it, so for every sentence the two
    # logits differ by exactly the bias gap, 1.2, however the sentence was tokenized; with dropout on they
    # do not, nor do the answers repeat. A tokenization mistake is test_returns_probability's to charge.
    runs = []
    for bias in (0.3, -0.9):
        inputs, _ = predict_problem(bias, specials_first=False)
        runs.append(student.run(PREDICT, stand_ins=("BERTGRUSentiment",), **inputs))
    values = [p for out in runs for p in out["p"] + [out["again"]]]
    expect(
        all(isinstance(p, float) and 0.0 < p < 1.0 for p in values),
        "predict_sentiment must return a probability strictly between 0 and 1 (a sigmoid of the logit)",
    )
    expect(
        all(abs(out["again"] - out["p"][0]) < 1e-6 for out in runs),
        "two predictions for the same sentence differ: predict_sentiment must put the model in eval mode",
    )
    gaps = [math.log(a / (1 - a)) - math.log(b / (1 - b)) for a, b in zip(runs[0]["p"], runs[1]["p"])]
    worst = max(abs(gap - 1.2) for gap in gaps)
    expect(
        len(gaps) == len(SENTENCES) and worst < 1e-4,
        f"with output biases 0.3 and -0.9 the logits behind your probabilities should differ by exactly 1.2 "
        f"(eval mode: no dropout before the output layer); they are off by up to {worst:.3g}",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "predict_sentiment",
        "the mode it leaves the model in",
        "Only the mode it runs the model in is contract; variant predict_restores_mode keeps full marks.",
    ),
    (
        "predict_sentiment",
        "gradient flow: no graph built",
        "A graph changes no returned number, only memory, and one sentence's graph is small.",
    ),
    (
        "predict_sentiment",
        "validation order",
        "It checks no argument and has no special case: every sentence takes the same path.",
        "validation-order",
    ),
    (
        "predict_sentiment",
        "exact boundaries",
        "It returns a probability and compares it with nothing; the 0.5 threshold is binary_accuracy's.",
        "boundary",
    ),
    ("predict_sentiment", "a sort's ties", "predict_sentiment sorts and ranks nothing.", "ties"),
    (
        "predict_sentiment",
        "degenerate values",
        "It has no branch on a value and no hyper-parameter; the shortest sentence of the tests, two words, takes the path a long one takes.",
        "degenerate",
    ),
    (
        "predict_sentiment",
        "state across calls",
        "It keeps nothing from one call to the next (a second prediction of the same sentence must agree); the mode it leaves the model in is not contract (variant predict_restores_mode).",
        "state",
    ),
    (
        "predict_sentiment",
        "device of what it makes",
        "Grading hides accelerators, so DEVICE is the CPU there and a missing .to(DEVICE) cannot show, and BERT cannot run on the meta device; on a Colab GPU the demo cell after it fails loudly.",
        "device",
    ),
    (
        "predict_sentiment",
        "hyper-parameters that are not whole numbers",
        "It has no hyper-parameter.",
        "non-integer",
    ),
    ("predict_sentiment", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    (
        "predict_sentiment",
        "a batch of one",
        "Every call is a batch of one sentence, so a squeeze that drops the batch axis fails every test of the question; nothing about it is specific to one case.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "predict_sentiment",
        "model",
        "the reference BERTGRUSentiment (hidden 6, dropout 0.5) on a tiny BERT, output biases 1.5, -2.0, 0.3, -0.9, handed over in training mode",
        None,
    ),
    (
        "predict_sentiment",
        "tokenizer",
        "word-level PreTrainedTokenizerFasts that return what bert-base-uncased's does ([CLS] ... [SEP], token_type_ids) with the special tokens at the first ids, the same with them at the last ids",
        None,
    ),
    (
        "predict_sentiment",
        "sentence",
        "'this film is great', 'a dull and boring movie with a weak plot', 'the acting'",
        None,
    ),
]
