"""Hidden tests: frozen-BERT + GRU sentiment model, binary accuracy, training/evaluation loops, prediction.

BERT is a tiny ``transformers.BertModel`` with an odd-sized config built in both processes from the
same state dict. The GRU oracle is ``nn.GRU`` over packed sequences with the student's weights copied.
For the accuracy threshold only frozen-BERT features and token masks go into the student's process;
held-out labels stay here.
"""

import math

import torch
import torch.nn as nn

from assignments.grading.testkit.checks import expect, expect_close, expect_shape, kernel_value, question
from autograder.transformers import data

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
            max_position_embeddings=64, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)

BUILD = ("from transformers import BertConfig, BertModel\n"
         "bert = BertModel(BertConfig(**config))\n"
         "bert.load_state_dict(bert_state)\n"
         "model = BERTGRUSentiment(bert, hidden, 1, layers, bidirectional, 0.5)\n")


def tiny_bert(seed, **changes):
    from transformers import BertConfig, BertModel
    config = dict(TINY, **changes)
    torch.manual_seed(seed)
    bert = BertModel(BertConfig(**config)).eval()
    return bert, config, {k: v.clone() for k, v in bert.state_dict().items()}


def ids_and_mask(seed, lengths, seq, vocab=99):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(4, vocab, (len(lengths), seq), generator=g)
    mask = (torch.arange(seq)[None, :] < torch.tensor(lengths)[:, None]).long()
    return ids * mask, mask


# Weights in, never out: every oracle below is built from weights this process chose and loaded into the
# student's model through the contracted attributes (model.rnn is an nn.GRU, model.out an nn.Linear). The
# kernel only reports outputs on inputs chosen here; a kernel that forges its reports can match an oracle
# only by producing the outputs a correct model would, and no reported number ever shapes an expected value.

LOAD_HEAD = ("try:\n"
             "    model.rnn.load_state_dict(gru_state)\n"
             "    model.out.load_state_dict(out_state)\n"
             "    loaded = True\n"
             "except (AttributeError, RuntimeError, KeyError, TypeError):\n"
             "    loaded = False\n")
CONTRACT = ("self.rnn must be nn.GRU(bert hidden size, hidden_dim, n_layers, bidirectional=..., batch_first=True) "
            "and self.out nn.Linear(hidden_dim x directions, output_dim): the grader could not load weights into them")


def with_head(body):
    """BUILD, then the grader's head weights loaded; `body` runs only when they loaded."""
    indented = "".join("    " + line + "\n" for line in body.splitlines())
    return BUILD + LOAD_HEAD + "if loaded:\n" + indented + "else:\n    result = {'loaded': False}\n"


def oracle_head(seed, input_size, hidden, layers, bidirectional):
    """The grader's choice of GRU and output-layer weights (spread wider than the default init)."""
    torch.manual_seed(seed)
    gru = nn.GRU(input_size, hidden, num_layers=layers, bidirectional=bidirectional, batch_first=True)
    out = nn.Linear(hidden * (2 if bidirectional else 1), 1)
    with torch.no_grad():
        for p in list(gru.parameters()) + list(out.parameters()):
            p.copy_(torch.randn(p.shape) * 0.4)
    return gru, out


def head_states(gru, out):
    return ({k: v.detach().clone() for k, v in gru.state_dict().items()},
            {k: v.detach().clone() for k, v in out.state_dict().items()})


def oracle_from_features(gru, out, features, mask):
    packed = nn.utils.rnn.pack_padded_sequence(features, mask.sum(1), batch_first=True, enforce_sorted=False)
    _, h = gru(packed)
    final = torch.cat([h[-2], h[-1]], dim=-1) if gru.bidirectional else h[-1]
    return out(final)


def oracle_logits(bert, gru, out, ids, mask):
    with torch.no_grad():
        features = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        return oracle_from_features(gru, out, features, mask)


@question("bert_gru_sentiment_tests", points=1)
def test_bert_frozen_head_learns(student):
    # Checked by behaviour: the grader's BERT and head weights go in, one SGD step over *all* of
    # model.parameters() on logits.sum() runs in the kernel, and the logits after the step must equal an
    # oracle that steps the head only, with BERT's weights unchanged. A trainable BERT moves (and the
    # logits with it); a head without gradients does not. The requires_grad report is compared with the
    # value the grader knows (all False) and never used to compute anything. What a forging kernel can
    # still get: this point, by reporting the logits a frozen BERT and a learning head would give.
    bert, config, state = tiny_bert(1)
    ids, mask = ids_and_mask(2, [7, 5, 3], 7)
    gru, out_layer = oracle_head(3, 32, 8, 2, True)
    gru_state, out_state = head_states(gru, out_layer)
    body = ("model.eval()\n"
            "optimizer = torch.optim.SGD(model.parameters(), lr=0.5)\n"
            "logits = model(input_ids=ids, attention_mask=mask)\n"
            "optimizer.zero_grad()\n"
            "logits.sum().backward()\n"
            "optimizer.step()\n"
            "with torch.no_grad():\n"
            "    after = model(input_ids=ids, attention_mask=mask)\n"
            "result = {'loaded': True, 'after': after, 'shape': list(logits.shape),\n"
            "          'frozen': all(not p.requires_grad for p in model.bert.parameters())}")
    out = student.run(with_head(body), config=config, bert_state=state, hidden=8, layers=2, bidirectional=True,
                      ids=ids, mask=mask, gru_state=gru_state, out_state=out_state)
    expect(out["loaded"] is True, CONTRACT)
    expect(out["shape"] == [3, 1],
           f"logits should have shape (batch, output_dim) = (3, 1); got {kernel_value(out['shape'])}")
    expect(out["frozen"] is True, "every BERT parameter must have requires_grad=False (BERT stays frozen)")
    optimizer = torch.optim.SGD(list(gru.parameters()) + list(out_layer.parameters()), lr=0.5)
    with torch.no_grad():
        features = bert(input_ids=ids, attention_mask=mask).last_hidden_state
    oracle_from_features(gru, out_layer, features, mask).sum().backward()
    optimizer.step()
    with torch.no_grad():
        expected = oracle_from_features(gru, out_layer, features, mask)
    expect_close(out["after"], expected, "logits after one SGD step over all of model.parameters(): BERT must "
                 "not change and every GRU and output-layer parameter must get a gradient", rtol=1e-4, atol=1e-4)


@question("bert_gru_sentiment_tests", points=2)
def test_matches_gru_oracle(student):
    cases = [(8, 2, True, [9, 4, 6, 2]), (6, 1, False, [5, 9, 3])]
    for index, (hidden, layers, bidirectional, lengths) in enumerate(cases):
        bert, config, state = tiny_bert(10 + index)
        ids, mask = ids_and_mask(20 + index, lengths, 9)
        gru, out_layer = oracle_head(40 + index, 32, hidden, layers, bidirectional)
        gru_state, out_state = head_states(gru, out_layer)
        body = ("model.eval()\n"
                "with torch.no_grad():\n"
                "    logits = model(input_ids=ids, attention_mask=mask)\n"
                "result = {'loaded': True, 'logits': logits}")
        out = student.run(with_head(body), config=config, bert_state=state, hidden=hidden, layers=layers,
                          bidirectional=bidirectional, ids=ids, mask=mask, gru_state=gru_state, out_state=out_state)
        expect(out["loaded"] is True, CONTRACT)
        what = (f"logits ({layers}-layer {'bidirectional' if bidirectional else 'unidirectional'} GRU, "
                f"hidden {hidden}, padded batch of lengths {lengths})")
        expected = oracle_logits(bert, gru, out_layer, ids, mask)
        expect_close(out["logits"], expected, what + ": GRU over the real tokens of BERT's last hidden states, "
                     "final hidden state of the last layer (both directions), then the output layer",
                     rtol=1e-4, atol=1e-5)


@question("bert_gru_sentiment_tests", points=1)
def test_cached_features_path(student):
    bert, config, state = tiny_bert(30)
    ids, mask = ids_and_mask(31, [6, 8, 3], 8)
    gru, out_layer = oracle_head(32, 32, 8, 1, True)
    gru_state, out_state = head_states(gru, out_layer)
    body = ("model.eval()\n"
            "features = model.encode(ids, mask)\n"
            "with torch.no_grad():\n"
            "    direct = model(input_ids=ids, attention_mask=mask)\n"
            "    cached = model(features=features, attention_mask=mask)\n"
            "result = {'loaded': True, 'features': features, 'grad': features.requires_grad,\n"
            "          'direct': direct, 'cached': cached}")
    out = student.run(with_head(body), config=config, bert_state=state, hidden=8, layers=1, bidirectional=True,
                      ids=ids, mask=mask, gru_state=gru_state, out_state=out_state)
    expect(out["loaded"] is True, CONTRACT)
    with torch.no_grad():
        expected = bert(input_ids=ids, attention_mask=mask).last_hidden_state
    expect_close(out["features"], expected, "encode(input_ids, attention_mask): BERT's last hidden states "
                 "(BERT in eval mode)", rtol=1e-4, atol=1e-5)
    expect(out["grad"] is False, "encode must not build a graph through BERT (use torch.no_grad())")
    logits = oracle_logits(bert, gru, out_layer, ids, mask)
    expect_close(out["cached"], logits, "model(features=encode(...)) must give the logits of "
                 "model(input_ids=...)", rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------- binary_accuracy

@question("binary_accuracy_tests", points=2)
def test_binary_accuracy(student):
    g = torch.Generator().manual_seed(70)
    for n in (7, 50, 333):
        logits = torch.randn(n, generator=g) * 0.8          # many logits in (-0.5, 0.5)
        y = torch.randint(0, 2, (n,), generator=g).float()
        got = student.run("result = binary_accuracy(logits, y)", logits=logits, y=y)
        expect(isinstance(got, (float, torch.Tensor)), f"binary_accuracy should return a number; got "
                                                       f"{type(got).__name__}")
        got = float(got)
        expected = ((torch.sigmoid(logits) > 0.5).float() == y).float().mean().item()
        expect(abs(got - expected) < 1e-6, f"accuracy of {n} logits: got {got:.4f}, expected {expected:.4f} "
                                           f"(the inputs are logits: apply a sigmoid, round at 0.5, and return "
                                           f"the fraction correct)")


# ------------------------------------------------------------------------------- training loops

HEAD = ("BERTGRUSentiment", "binary_accuracy")
LOADER = ("items = [{'features': f, 'attention_mask': m, 'labels': y} for f, m, y in zip(features, masks, labels)]\n"
          "loader = torch.utils.data.DataLoader(items, batch_size=batch_size, shuffle=shuffle)\n")
SMALL = ("from transformers import BertConfig, BertModel\n"
         "bert = BertModel(BertConfig(vocab_size=8, hidden_size=width, num_hidden_layers=1, num_attention_heads=2,\n"
         "                            intermediate_size=8, max_position_embeddings=8))\n"
         "model = BERTGRUSentiment(bert, hidden, 1, 1, True, dropout)\n"
         "model.load_state_dict(head_state, strict=False)\n")


def head_problem(seed, n=24, seq=6, width=12, hidden=5):
    ref = __import__("autograder.transformers.helpers", fromlist=["reference"]).reference()
    from transformers import BertConfig, BertModel
    g = torch.Generator().manual_seed(seed)
    features = torch.randn(n, seq, width, generator=g)
    lengths = torch.randint(2, seq + 1, (n,), generator=g)
    masks = (torch.arange(seq)[None, :] < lengths[:, None]).long()
    labels = torch.randint(0, 2, (n,), generator=g).float()
    torch.manual_seed(seed)
    bert = BertModel(BertConfig(vocab_size=8, hidden_size=width, num_hidden_layers=1, num_attention_heads=2,
                                intermediate_size=8, max_position_embeddings=8))
    model = ref.BERTGRUSentiment(bert, hidden, 1, 1, True, 0.0)
    head_state = {k: v.clone() for k, v in model.state_dict().items() if not k.startswith("bert.")}
    return ref, model, head_state, features, masks, labels


@question("train_eval_loops_tests", points=1)
def test_train_epoch_matches_reference(student):
    # Training mode under the same seeded randomness: the head (dropout 0.5) is handed to train_epoch in
    # eval mode, and both processes seed torch with the same number just before the epoch, so a correct
    # train_epoch (model.train(), then the loop over the same DataLoader) draws the same dropout masks as
    # the reference train_epoch run here. One that never calls model.train() trains without dropout.
    ref, model, head_state, features, masks, labels = head_problem(80)
    seed = 82
    code = SMALL + LOADER + (
        "optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.3)\n"
        "model.eval()\n"
        "torch.manual_seed(seed)\n"
        "loss, acc = train_epoch(model, loader, optimizer, nn.BCEWithLogitsLoss())\n"
        "result = {'loss': float(loss), 'acc': float(acc),\n"
        "          'state': {k: v for k, v in model.state_dict().items() if not k.startswith('bert.')}}")
    out = student.run(code, stand_ins=HEAD, width=12, hidden=5, dropout=0.5, head_state=head_state,
                      features=features, masks=masks, labels=labels, batch_size=8, shuffle=False, seed=seed)
    model.dropout.p = 0.5
    items = [{"features": f, "attention_mask": m, "labels": y} for f, m, y in zip(features, masks, labels)]
    loader = torch.utils.data.DataLoader(items, batch_size=8, shuffle=False)
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.3)
    model.eval()
    torch.manual_seed(seed)
    loss, acc = ref.train_epoch(model, loader, optimizer, nn.BCEWithLogitsLoss())
    expect(abs(out["loss"] - loss) < 1e-4,
           f"train_epoch's loss differs from the reference by {abs(out['loss'] - loss):.3g}: it should be the "
           f"mean of the batch losses, with the model in training mode (dropout on)")
    expect(abs(out["acc"] - acc) < 1e-4,
           f"train_epoch's accuracy differs from the reference by {abs(out['acc'] - acc):.3g}: it should be the "
           f"mean of the batch accuracies")
    for name, tensor in model.state_dict().items():
        if not name.startswith("bert."):
            expect_close(out["state"][name], tensor, f"head parameter {name} after one epoch of SGD in training "
                         "mode (model.train(); for each batch: zero the gradients, forward, loss, backward, step)",
                         rtol=1e-4, atol=1e-5)


@question("train_eval_loops_tests", points=1)
def test_evaluate_matches_reference(student):
    ref, model, head_state, features, masks, labels = head_problem(81)
    # "evaluate must not change the parameters" is checked by behaviour: after evaluate, the logits of the
    # first batch (eval mode, grader's features) must still be those of the grader's head_state.
    code = SMALL + LOADER + (
        "model.train()\n"
        "loss, acc = evaluate(model, loader, nn.BCEWithLogitsLoss())\n"
        "model.eval()\n"
        "with torch.no_grad():\n"
        "    probe = model(features=features[:8], attention_mask=masks[:8])\n"
        "result = {'loss': float(loss), 'acc': float(acc), 'probe': probe}")
    out = student.run(code, stand_ins=HEAD, width=12, hidden=5, dropout=0.7, head_state=head_state,
                      features=features, masks=masks, labels=labels, batch_size=8, shuffle=False)
    model.eval()
    criterion = nn.BCEWithLogitsLoss()
    with torch.no_grad():
        batches = [(model(features=features[s:s + 8], attention_mask=masks[s:s + 8]).squeeze(1), labels[s:s + 8])
                   for s in range(0, len(labels), 8)]
        probe = model(features=features[:8], attention_mask=masks[:8])
    loss = sum(criterion(lg, y).item() for lg, y in batches) / len(batches)
    acc = sum(ref.binary_accuracy(lg, y).item() for lg, y in batches) / len(batches)
    expect_close(out["probe"], probe, "the model's logits after evaluate: evaluate must not change the model's "
                 "parameters", rtol=1e-4, atol=1e-5)
    expect(abs(out["loss"] - loss) < 1e-4 and abs(out["acc"] - acc) < 1e-4,
           f"evaluate returned loss {out['loss']:.4f} and accuracy {out['acc']:.4f}; expected {loss:.4f} and "
           f"{acc:.4f} (the model in eval mode, dropout off, means over batches)")


@question("train_eval_loops_tests", points=2)
def test_trained_head_beats_threshold(student):
    # Calibration: the reference loop with exactly these settings under grading seeds 0..9 (the seed is
    # applied before the snippet runs, so it sets the head's initial weights and the shuffling) reached
    # held-out accuracy 1.000, 0.993, 0.980, 0.998, 0.990, 0.990, 0.995, 0.957, 0.998, 0.995: worst 0.957
    # (seed 7), median 0.994. The bar is 0.90; an untrained head scores about 0.5. About 1 s on one core.
    from transformers import BertConfig, BertModel
    train_texts, train_labels = data.reviews(256, 1000)
    test_texts, test_labels = data.reviews(400, 2000)
    train_ids, train_mask = data.encode(train_texts)
    test_ids, test_mask = data.encode(test_texts)
    # A frozen "pretrained" encoder: a tiny random BERT whose word embeddings carry a sentiment direction.
    torch.manual_seed(123)
    bert = BertModel(BertConfig(vocab_size=len(data.VOCAB), hidden_size=32, num_hidden_layers=1,
                                num_attention_heads=2, intermediate_size=64, max_position_embeddings=32)).eval()
    g = torch.Generator().manual_seed(7)
    direction = torch.randn(32, generator=g)
    direction = 0.4 * direction / direction.norm()
    with torch.no_grad():
        for word in data.POSITIVE:
            bert.embeddings.word_embeddings.weight[data.WORD_ID[word]] += direction
        for word in data.NEGATIVE:
            bert.embeddings.word_embeddings.weight[data.WORD_ID[word]] -= direction
        features = bert(input_ids=train_ids, attention_mask=train_mask).last_hidden_state
        held_out = bert(input_ids=test_ids, attention_mask=test_mask).last_hidden_state
    code = ("from transformers import BertConfig, BertModel\n"
            "bert = BertModel(BertConfig(vocab_size=8, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,\n"
            "                            intermediate_size=8, max_position_embeddings=8))\n"
            "model = BERTGRUSentiment(bert, 16, 1, 1, True, 0.1)\n" + LOADER +
            "optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)\n"
            "for epoch in range(3):\n"
            "    train_epoch(model, loader, optimizer, nn.BCEWithLogitsLoss())\n"
            "model.eval()\n"
            "with torch.no_grad():\n"
            "    result = (model(features=held_out, attention_mask=held_out_mask).squeeze(1) > 0).long()\n")
    predictions = student.run(code, stand_ins=HEAD, features=features, masks=train_mask,
                              labels=torch.tensor(train_labels, dtype=torch.float), batch_size=32, shuffle=True,
                              held_out=held_out, held_out_mask=test_mask, timeout=60)
    predictions = expect_shape(predictions, (len(test_labels),), "predictions")
    accuracy = (predictions == torch.tensor(test_labels)).float().mean().item()
    expect(accuracy >= 0.90, f"after 3 epochs with your train_epoch the model reached {accuracy:.3f} accuracy "
                             f"on held-out reviews; at least 0.90 is expected")


# ---------------------------------------------------------------------------------- predict_sentiment

# The grader chooses everything predict_sentiment's answer depends on: a word-level tokenizer over its own
# vocabulary (real `tokenizers`/`transformers` classes, built from the same source text in both processes),
# BERT's weights and the head's weights. The kernel reports only probabilities.
# The tokenizer behaves like the BERT tokenizer the notebook gives students: its special tokens ([PAD],
# [UNK], [CLS], [SEP], [MASK]) have ids and names, calling it wraps a sentence in [CLS] ... [SEP], and
# tokenize / convert_tokens_to_ids / cls_token_id / sep_token_id work as they do on BertTokenizerFast.
TOKENIZER = ("from tokenizers import Tokenizer, models, pre_tokenizers, processors\n"
             "from transformers import PreTrainedTokenizerFast\n"
             "core = Tokenizer(models.WordLevel(vocab, unk_token='[UNK]'))\n"
             "core.pre_tokenizer = pre_tokenizers.Whitespace()\n"
             "core.post_processor = processors.TemplateProcessing(\n"
             "    single='[CLS] $A [SEP]', pair='[CLS] $A [SEP] $B:1 [SEP]:1',\n"
             "    special_tokens=[('[CLS]', vocab['[CLS]']), ('[SEP]', vocab['[SEP]'])])\n"
             "tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token='[UNK]', pad_token='[PAD]',\n"
             "                                    cls_token='[CLS]', sep_token='[SEP]', mask_token='[MASK]')\n")
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PREDICT_BERT = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=20,
                    max_position_embeddings=64)
PREDICT = (TOKENIZER +
           "from transformers import BertConfig, BertModel\n"
           "bert = BertModel(BertConfig(**config))\n"
           "bert.load_state_dict(bert_state)\n"
           "model = BERTGRUSentiment(bert, 6, 1, 1, True, 0.5)\n"
           "model.load_state_dict(head_state, strict=False)\n"
           "model.train()\n"
           "probabilities = [predict_sentiment(model, tokenizer, s) for s in sentences]\n"
           "again = predict_sentiment(model, tokenizer, sentences[0])\n"
           "result = {'p': probabilities, 'again': again}")
SENTENCES = ["this film is great", "a dull and boring movie with a weak plot", "the acting"]


def predict_problem(bias):
    """(inputs for PREDICT, expected probabilities), every weight and token id chosen here."""
    from transformers import BertConfig, BertModel
    ref = __import__("autograder.transformers.helpers", fromlist=["reference"]).reference()
    words = sorted({w for s in SENTENCES for w in s.split()})
    vocab = {**{token: i for i, token in enumerate(SPECIAL)}, **{w: i + len(SPECIAL) for i, w in enumerate(words)}}
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


@question("predict_sentiment_tests", points=1)
def test_returns_probability(student):
    for bias in (1.5, -2.0):
        inputs, expected = predict_problem(bias)
        out = student.run(PREDICT, stand_ins=("BERTGRUSentiment",), **inputs)
        got = out["p"]
        expect(all(isinstance(p, float) for p in got), "predict_sentiment must return a Python float")
        outside = sum(not 0.0 <= p <= 1.0 for p in got)
        expect(not outside, f"predict_sentiment must return a probability in [0, 1] (apply a sigmoid to the logit); "
                            f"{outside} of {len(got)} predictions were outside")
        worst = max(abs(a - b) for a, b in zip(got, expected))
        expect(len(got) == len(expected) and worst < 1e-5,
               f"predicted probabilities differ from the reference by up to {worst:.3g} (the model in eval mode, "
               f"the sentence tokenized by calling the tokenizer, which adds [CLS] and [SEP], then a sigmoid)")


@question("predict_sentiment_tests", points=1)
def test_eval_mode(student):
    # Only the mode, whatever the tokenization: the model arrives in training mode (dropout 0.5 before the
    # output layer), and the grader gives it two heads that differ only in the output bias (0.3 and -0.9).
    # In eval mode the logit is out(final state) with no dropout after it, so for every sentence the two
    # logits differ by exactly the bias gap, 1.2, however the sentence was tokenized; with dropout on they
    # do not, nor do the answers repeat. A tokenization mistake is test_returns_probability's to charge.
    runs = []
    for bias in (0.3, -0.9):
        inputs, _ = predict_problem(bias)
        runs.append(student.run(PREDICT, stand_ins=("BERTGRUSentiment",), **inputs))
    values = [p for out in runs for p in out["p"] + [out["again"]]]
    expect(all(isinstance(p, float) and 0.0 < p < 1.0 for p in values),
           "predict_sentiment must return a probability strictly between 0 and 1 (a sigmoid of the logit)")
    expect(all(abs(out["again"] - out["p"][0]) < 1e-6 for out in runs),
           "two predictions for the same sentence differ: predict_sentiment must put the model in eval mode")
    gaps = [math.log(a / (1 - a)) - math.log(b / (1 - b)) for a, b in zip(runs[0]["p"], runs[1]["p"])]
    worst = max(abs(gap - 1.2) for gap in gaps)
    expect(len(gaps) == len(SENTENCES) and worst < 1e-4,
           f"with output biases 0.3 and -0.9 the logits behind your probabilities should differ by exactly 1.2 "
           f"(eval mode: no dropout before the output layer); they are off by up to {worst:.3g}")
