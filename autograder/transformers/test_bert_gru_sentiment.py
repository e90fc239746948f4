"""Hidden tests: the frozen-BERT + GRU sentiment model.

BERT is a tiny ``transformers.BertModel`` with an odd-sized config built in both processes from the
same state dict. The GRU oracle is ``nn.GRU`` over packed sequences with the student's weights copied.
"""

import torch
import torch.nn as nn

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, kernel_value, question

TINY = dict(
    vocab_size=99,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=37,
    max_position_embeddings=64,
    hidden_dropout_prob=0.1,
    attention_probs_dropout_prob=0.1,
)

BUILD = (
    "from transformers import BertConfig, BertModel\n"
    "bert = BertModel(BertConfig(**config))\n"
    "bert.load_state_dict(bert_state)\n"
    "model = BERTGRUSentiment(bert, hidden, out_dim, layers, bidirectional, dropout)\n"
)


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

LOAD_HEAD = (
    "try:\n"
    "    model.rnn.load_state_dict(gru_state)\n"
    "    model.out.load_state_dict(out_state)\n"
    "    loaded = True\n"
    "except (AttributeError, RuntimeError, KeyError, TypeError):\n"
    "    loaded = False\n"
)
CONTRACT = (
    "self.rnn must be nn.GRU(bert hidden size, hidden_dim, n_layers, bidirectional=..., batch_first=True) "
    "and self.out nn.Linear(hidden_dim x directions, output_dim): the grader could not load weights into them"
)


def with_head(body):
    """BUILD, then the grader's head weights loaded; `body` runs only when they loaded."""
    indented = "".join("    " + line + "\n" for line in body.splitlines())
    return BUILD + LOAD_HEAD + "if loaded:\n" + indented + "else:\n    result = {'loaded': False}\n"


def oracle_head(seed, input_size, hidden, layers, bidirectional, out_dim=1):
    """The grader's choice of GRU and output-layer weights (spread wider than the default init)."""
    torch.manual_seed(seed)
    gru = nn.GRU(input_size, hidden, num_layers=layers, bidirectional=bidirectional, batch_first=True)
    out = nn.Linear(hidden * (2 if bidirectional else 1), out_dim)
    with torch.no_grad():
        for p in list(gru.parameters()) + list(out.parameters()):
            p.copy_(torch.randn(p.shape) * 0.4)
    return gru, out


def head_states(gru, out):
    return (
        {k: v.detach().clone() for k, v in gru.state_dict().items()},
        {k: v.detach().clone() for k, v in out.state_dict().items()},
    )


def oracle_from_features(gru, out, features, mask):
    packed = nn.utils.rnn.pack_padded_sequence(features, mask.sum(1), batch_first=True, enforce_sorted=False)
    _, h = gru(packed)
    final = torch.cat([h[-2], h[-1]], dim=-1) if gru.bidirectional else h[-1]
    return out(final)


def oracle_logits(bert, gru, out, ids, mask):
    with torch.no_grad():
        features = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        return oracle_from_features(gru, out, features, mask)


@question("bert_gru_sentiment_tests")
@behaviour("BERTGRUSentiment", "gradient flow: BERT frozen, the head trained", mutant="bert_not_frozen")
@behaviour(
    "BERTGRUSentiment",
    "state: a step over model.parameters() leaves BERT as it was",
    mutant="bert_not_frozen",
    kind="state",
)
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
    body = (
        "model.eval()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.5)\n"
        "logits = model(input_ids=ids, attention_mask=mask)\n"
        "optimizer.zero_grad()\n"
        "logits.sum().backward()\n"
        "optimizer.step()\n"
        "with torch.no_grad():\n"
        "    after = model(input_ids=ids, attention_mask=mask)\n"
        "result = {'loaded': True, 'after': after, 'shape': list(logits.shape),\n"
        "          'frozen': all(not p.requires_grad for p in model.bert.parameters())}"
    )
    out = student.run(
        with_head(body),
        config=config,
        bert_state=state,
        hidden=8,
        out_dim=1,
        layers=2,
        bidirectional=True,
        dropout=0.5,
        ids=ids,
        mask=mask,
        gru_state=gru_state,
        out_state=out_state,
    )
    expect(out["loaded"] is True, CONTRACT)
    expect(
        out["shape"] == [3, 1],
        f"logits should have shape (batch, output_dim) = (3, 1); got {kernel_value(out['shape'])}",
    )
    expect(out["frozen"] is True, "every BERT parameter must have requires_grad=False (BERT stays frozen)")
    optimizer = torch.optim.SGD(list(gru.parameters()) + list(out_layer.parameters()), lr=0.5)
    with torch.no_grad():
        features = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        before = oracle_from_features(gru, out_layer, features, mask)
    oracle_from_features(gru, out_layer, features, mask).sum().backward()
    optimizer.step()
    with torch.no_grad():
        expected = oracle_from_features(gru, out_layer, features, mask)
    # Tolerance from the size of the effect: the head's step moves each logit by about 10 (measured: 10.1 to
    # 10.7), so 0.01% of the smallest move (about 1e-3) is a hundred times float32 noise on logits of about 11
    # and far below the step of a head that misses a gradient.
    effect = (expected - before).abs().min().item()
    expect_close(
        out["after"],
        expected,
        "logits after one SGD step over all of model.parameters() (the step moves each logit by about "
        f"{effect:.0f}): BERT must not change and every GRU and output-layer parameter must get a gradient",
        rtol=0.0,
        atol=1e-4 * effect,
    )


@question("bert_gru_sentiment_tests")
@behaviour("BERTGRUSentiment", "packed GRU reads real tokens only", mutant="gru_reads_padding")
@behaviour("BERTGRUSentiment", "final state of the last layer, both directions", mutant="gru_first_layer_hidden")
@behaviour("BERTGRUSentiment", "eval mode: no dropout in the head", mutant="gru_head_dropout_always_on")
@behaviour("BERTGRUSentiment", "a batch of one review", mutant="gru_lengths_squeezed", kind="batch-of-one")
@behaviour(
    "BERTGRUSentiment",
    "attention_mask None: every token real (the keep-everything mask)",
    mutant="gru_head_requires_mask",
    kind="degenerate",
)
@behaviour("BERTGRUSentiment", "output_dim logits", mutant="gru_single_logit")
def test_matches_gru_oracle(student):
    # hidden, layers, bidirectional, lengths (None: no attention_mask, every token real), output_dim, BERT's
    # hidden size. The third case is a batch of one sentence with three logits.
    cases = [
        (8, 2, True, [9, 4, 6, 2], 1, 32),
        (6, 1, False, [5, 9, 3], 1, 32),
        (5, 2, False, [6], 3, 32),
        (4, 1, True, None, 2, 24),
    ]
    for index, (hidden, layers, bidirectional, lengths, out_dim, width) in enumerate(cases):
        bert, config, state = tiny_bert(10 + index, hidden_size=width)
        ids, mask = ids_and_mask(20 + index, lengths or [9, 9], 9)
        gru, out_layer = oracle_head(40 + index, width, hidden, layers, bidirectional, out_dim)
        gru_state, out_state = head_states(gru, out_layer)
        body = (
            "model.eval()\n"
            "with torch.no_grad():\n"
            "    logits = model(input_ids=ids, attention_mask=mask) if mask is not None else model(input_ids=ids)\n"
            "result = {'loaded': True, 'logits': logits}"
        )
        out = student.run(
            with_head(body),
            config=config,
            bert_state=state,
            hidden=hidden,
            out_dim=out_dim,
            layers=layers,
            bidirectional=bidirectional,
            dropout=0.5,
            ids=ids,
            mask=mask if lengths else None,
            gru_state=gru_state,
            out_state=out_state,
        )
        expect(out["loaded"] is True, CONTRACT)
        what = (
            f"logits ({layers}-layer {'bidirectional' if bidirectional else 'unidirectional'} GRU, hidden {hidden}, "
            f"output_dim {out_dim}, eval mode, "
            + (f"padded batch of lengths {lengths})" if lengths else "attention_mask=None: every token real)")
        )
        expected = oracle_logits(bert, gru, out_layer, ids, mask)
        expect_close(
            out["logits"],
            expected,
            what + ": GRU over the real tokens of BERT's last hidden states, "
            "final hidden state of the last layer (both directions), then the output layer",
            rtol=1e-4,
            atol=1e-5,
        )


@question("bert_gru_sentiment_tests", points=0.5)
@behaviour(
    "BERTGRUSentiment",
    "encode: BERT in eval mode without a graph; cached path equals the direct one",
    mutant="bert_not_frozen",
)
def test_cached_features_path(student):
    bert, config, state = tiny_bert(30)
    ids, mask = ids_and_mask(31, [6, 8, 3], 8)
    gru, out_layer = oracle_head(32, 32, 8, 1, True)
    gru_state, out_state = head_states(gru, out_layer)
    body = (
        "model.eval()\n"
        "features = model.encode(ids, mask)\n"
        "with torch.no_grad():\n"
        "    direct = model(input_ids=ids, attention_mask=mask)\n"
        "    cached = model(features=features, attention_mask=mask)\n"
        "result = {'loaded': True, 'features': features, 'grad': features.requires_grad,\n"
        "          'direct': direct, 'cached': cached}"
    )
    out = student.run(
        with_head(body),
        config=config,
        bert_state=state,
        hidden=8,
        out_dim=1,
        layers=1,
        bidirectional=True,
        dropout=0.5,
        ids=ids,
        mask=mask,
        gru_state=gru_state,
        out_state=out_state,
    )
    expect(out["loaded"] is True, CONTRACT)
    with torch.no_grad():
        expected = bert(input_ids=ids, attention_mask=mask).last_hidden_state
    expect_close(
        out["features"],
        expected,
        "encode(input_ids, attention_mask): BERT's last hidden states (BERT in eval mode)",
        rtol=1e-4,
        atol=1e-5,
    )
    expect(out["grad"] is False, "encode must not build a graph through BERT (use torch.no_grad())")
    logits = oracle_logits(bert, gru, out_layer, ids, mask)
    expect_close(
        out["cached"],
        logits,
        "model(features=encode(...)) must give the logits of model(input_ids=...)",
        rtol=1e-4,
        atol=1e-5,
    )


@question("bert_gru_sentiment_tests", points=0.5)
@behaviour(
    "BERTGRUSentiment",
    "encode switches BERT to eval mode itself, in a model that is training",
    mutant="encode_without_bert_eval",
)
def test_encode_puts_bert_in_eval_mode(student):
    # The model arrives in training mode, as it does in the notebook's caching cell (a freshly built model):
    # encode itself must switch BERT (dropout 0.1 in this config) to eval mode, so its features are
    # deterministic and equal BERT's in eval mode.
    bert, config, state = tiny_bert(33)
    ids, mask = ids_and_mask(34, [7, 3, 5], 7)
    gru, out_layer = oracle_head(35, 32, 4, 1, False)
    gru_state, out_state = head_states(gru, out_layer)
    body = (
        "model.train()\n"
        "first, second = model.encode(ids, mask), model.encode(ids, mask)\n"
        "result = {'loaded': True, 'first': first, 'second': second}"
    )
    out = student.run(
        with_head(body),
        config=config,
        bert_state=state,
        hidden=4,
        out_dim=1,
        layers=1,
        bidirectional=False,
        dropout=0.5,
        ids=ids,
        mask=mask,
        gru_state=gru_state,
        out_state=out_state,
    )
    expect(out["loaded"] is True, CONTRACT)
    with torch.no_grad():
        expected = bert(input_ids=ids, attention_mask=mask).last_hidden_state
    for key in ("first", "second"):
        expect_close(
            out[key],
            expected,
            f"the {key} encode(input_ids, attention_mask) of a model in training mode: encode must put BERT in "
            "eval mode itself (self.bert.eval()), so that its features carry no dropout noise",
            rtol=1e-4,
            atol=1e-5,
        )


@question("bert_gru_sentiment_tests")
@behaviour(
    "BERTGRUSentiment",
    "train mode: dropout at the given rate on the final state, before the output layer",
    mutant="gru_head_without_dropout",
)
def test_head_dropout_in_training(student):
    # Under the grader's output layer, the identity (output_dim = 2 x hidden_dim, no bias), the logits in
    # training mode are the dropped-out final states themselves: each entry is 0 or the oracle's final state
    # divided by 1 - p, whatever order the dropout draws in. A one-layer GRU has no dropout of its own.
    # 128 sentences x 8 entries = 1,024 per rate: sigma of the dropped fraction is sqrt(p (1 - p) / 1024),
    # 0.0156 at p = 0.5 and 0.0125 at p = 0.2; the bound 0.08 is over 5 sigma for both.
    g = torch.Generator().manual_seed(36)
    hidden, out_dim = 4, 8
    features = torch.randn(128, 5, 32, generator=g)
    lengths = torch.randint(1, 6, (128,), generator=g)
    mask = (torch.arange(5)[None, :] < lengths[:, None]).long()
    bert, config, state = tiny_bert(37)
    gru, _ = oracle_head(38, 32, hidden, 1, True)
    identity = nn.Linear(2 * hidden, out_dim)
    with torch.no_grad():
        identity.weight.copy_(torch.eye(out_dim))
        identity.bias.zero_()
    gru_state, out_state = head_states(gru, identity)
    with torch.no_grad():
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        _, h = gru(packed)
        final = torch.cat([h[-2], h[-1]], dim=-1)
    for rate in (0.5, 0.2):
        body = (
            "model.train()\n"
            "with torch.no_grad():\n"
            "    logits = model(features=features, attention_mask=mask)\n"
            "result = {'loaded': True, 'logits': logits}"
        )
        out = student.run(
            with_head(body),
            config=config,
            bert_state=state,
            hidden=hidden,
            out_dim=out_dim,
            layers=1,
            bidirectional=True,
            dropout=rate,
            features=features,
            mask=mask,
            ids=None,
            gru_state=gru_state,
            out_state=out_state,
        )
        expect(out["loaded"] is True, CONTRACT)
        logits = expect_shape(out["logits"], (128, out_dim), f"logits with output_dim={out_dim}")
        dropped = logits == 0
        fraction = dropped.float().mean().item()
        kept_right = torch.allclose(logits[~dropped], final[~dropped] / (1 - rate), rtol=1e-4, atol=1e-5)
        expect(
            abs(fraction - rate) < 0.08 and kept_right,
            f"in training mode with dropout={rate}, {100 * fraction:.1f}% of the final GRU state's entries were "
            f"dropped before the output layer (expected about {100 * rate:.0f}%)"
            + ("" if kept_right else ", and the kept ones differ from the final state scaled by 1/(1-p)")
            + ": apply self.dropout to the final hidden state (both directions), then self.out",
        )


@question("bert_gru_sentiment_tests", points=0.5)
@behaviour(
    "BERTGRUSentiment",
    "randomness in every branch: the GRU's own dropout between its layers in training mode",
    mutant="gru_without_layer_dropout",
    kind="randomness",
)
def test_gru_dropout_between_layers(student):
    # A 2-layer unidirectional GRU (hidden 4) under the grader's weights, the output layer the identity
    # (output_dim 4, no bias), dropout 0.5, training mode. The head's dropout alone would make every logit 0
    # or the eval-mode final state divided by 1 - p, whatever order dropout draws in; nn.GRU(...,
    # dropout=p) also drops the first layer's outputs before the second layer reads them, so kept logits
    # then differ from that. 64 sentences of 2 to 6 tokens: all of a sentence's first-layer outputs (4 units,
    # 2 steps or more) survive with probability at most 0.5^8 = 0.004, so a correct model matches in about
    # that share of its kept entries (bound 0.5); a GRU built without the dropout matches in all of them.
    g = torch.Generator().manual_seed(39)
    hidden, rate = 4, 0.5
    features = torch.randn(64, 6, 32, generator=g)
    lengths = torch.randint(2, 7, (64,), generator=g)
    mask = (torch.arange(6)[None, :] < lengths[:, None]).long()
    bert, config, state = tiny_bert(40)
    gru, _ = oracle_head(41, 32, hidden, 2, False)
    identity = nn.Linear(hidden, hidden)
    with torch.no_grad():
        identity.weight.copy_(torch.eye(hidden))
        identity.bias.zero_()
    gru_state, out_state = head_states(gru, identity)
    with torch.no_grad():
        final = oracle_from_features(gru, identity, features, mask)  # eval mode: no dropout anywhere
    body = (
        "model.train()\n"
        "with torch.no_grad():\n"
        "    logits = model(features=features, attention_mask=mask)\n"
        "result = {'loaded': True, 'logits': logits}"
    )
    out = student.run(
        with_head(body),
        config=config,
        bert_state=state,
        hidden=hidden,
        out_dim=hidden,
        layers=2,
        bidirectional=False,
        dropout=rate,
        features=features,
        mask=mask,
        ids=None,
        gru_state=gru_state,
        out_state=out_state,
    )
    expect(out["loaded"] is True, CONTRACT)
    logits = expect_shape(out["logits"], (64, hidden), f"logits with output_dim={hidden}")
    kept = logits != 0
    matches = ((logits - final / (1 - rate)).abs() < 1e-5) & kept
    share = matches.sum().item() / max(kept.sum().item(), 1)
    expect(
        share < 0.5,
        f"in training mode with n_layers=2 and dropout={rate}, {100 * share:.0f}% of the kept logits equal a GRU's "
        "with no dropout between its layers (expected almost none): build the GRU with nn.GRU(..., "
        "dropout=0 if n_layers < 2 else dropout), as the skeleton says",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "BERTGRUSentiment",
        "validation order",
        "It checks no argument; its special cases (features given or not, attention_mask None or not) are decided by one argument each and tested both ways.",
        "validation-order",
    ),
    (
        "BERTGRUSentiment",
        "exact boundaries",
        "It compares nothing with a threshold: the lengths are sums of a 0/1 mask.",
        "boundary",
    ),
    (
        "BERTGRUSentiment",
        "a sort's ties",
        "It sorts nothing itself: pack_padded_sequence(enforce_sorted=False) sorts by length and puts the batch back in order, and reviews of equal length give the same result in either order.",
        "ties",
    ),
    (
        "BERTGRUSentiment",
        "device of what it makes",
        "pack_padded_sequence needs its lengths on the CPU and a transformers BertModel cannot run on the meta device, so no device but the CPU can be tried in grading (which hides GPUs); the notebook moves the model and batches to DEVICE itself.",
        "device",
    ),
    (
        "BERTGRUSentiment",
        "optimisation steps",
        "It takes no optimisation step itself (train_epoch does); the one test that steps over its parameters, to show BERT frozen and the head learning, compares the logits to 0.01% of the step's effect on them, and the mistakes it meets (a trainable BERT, a head without gradients) are far larger.",
        "step-tolerance",
    ),
    (
        "BERTGRUSentiment",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches a hyper-parameter: dropout (0.2 and 0.5 in the tests) goes unchanged into nn.Dropout and nn.GRU, and the rest are sizes and a flag.",
        "non-integer",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "BERTGRUSentiment",
        "bert",
        "a tiny random BertModel of hidden size 24, one of hidden size 32 (BERT's dropout 0.1 in both)",
        None,
    ),
    ("BERTGRUSentiment", "hidden_dim", "4, 5, 6, 8", None),
    ("BERTGRUSentiment", "output_dim", "1, 2, 3, 4, 8", None),
    ("BERTGRUSentiment", "n_layers", "1, 2", None),
    ("BERTGRUSentiment", "bidirectional", "True, False", None),
    ("BERTGRUSentiment", "dropout", "0.2, 0.5", None),
    ("BERTGRUSentiment.encode", "input_ids", "(3, 7), (3, 8), and every forward call without features", None),
    ("BERTGRUSentiment.encode", "attention_mask", "padding masks, None (through forward)", None),
    (
        "BERTGRUSentiment.head",
        "features",
        "BERT's outputs, and cached features (3, 8, 32), (128, 5, 32), (64, 6, 32)",
        None,
    ),
    ("BERTGRUSentiment.head", "attention_mask", "padding masks with lengths from 1 to seq, None", None),
    ("BERTGRUSentiment.forward", "input_ids", "None, batches of 1 to 4 reviews of 7 to 9 tokens", None),
    ("BERTGRUSentiment.forward", "attention_mask", "None, padding masks", None),
    ("BERTGRUSentiment.forward", "features", "None, cached features (3, 8, 32), (128, 5, 32), (64, 6, 32)", None),
]
