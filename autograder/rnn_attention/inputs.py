"""What the grader builds and sends into the rnn_attention student's code: seeded tensors, the grader's
weights and a tiny BERT's state and batch. Built in the grader's process from explicit seeds."""

from __future__ import annotations

import math

import torch


def seeded(shape, generator, scale=1.0):
    return torch.randn(shape, generator=generator) * scale


def random_dot_state(hidden, generator):
    state = {}
    for name in ("Wq", "Wk", "Wv"):
        state[f"{name}.weight"] = seeded((hidden, hidden), generator, 1 / math.sqrt(hidden))
        state[f"{name}.bias"] = seeded((hidden,), generator, 0.1)
    return state


# A BertModelTester-style tiny configuration: odd sizes so shape bugs cannot hide; no dropout, so that a
# training-mode step can be replayed exactly (BertModel's own dropout draws would otherwise decide it).
TINY_BERT = dict(
    vocab_size=99,
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=37,
    max_position_embeddings=16,
    type_vocab_size=2,
    num_labels=3,
    hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0,
)

# A second configuration that differs in every size the contract leaves open (vocabulary, hidden size,
# layers, heads, labels) and has dropout on. It is used in evaluation mode only, where dropout must be off:
# a head sized from the visible check's numbers, or a dropout that ignores model.eval(), shows here.
OTHER_BERT = dict(
    vocab_size=61,
    hidden_size=24,
    num_hidden_layers=1,
    num_attention_heads=3,
    intermediate_size=29,
    max_position_embeddings=16,
    type_vocab_size=2,
    num_labels=2,
    hidden_dropout_prob=0.3,
    attention_probs_dropout_prob=0.2,
)


def tiny_bert_state(seed=1234, config=TINY_BERT):
    """(state dict with a random classifier, oracle BertModel in eval mode), independent of global RNG."""
    from transformers import BertConfig, BertModel

    with torch.random.fork_rng():
        torch.manual_seed(seed)
        oracle = BertModel(BertConfig(**config)).eval()
        generator = torch.Generator().manual_seed(seed)
        weight = seeded((config["num_labels"], config["hidden_size"]), generator, 0.3)
        bias = seeded((config["num_labels"],), generator, 0.1)
    state = {k: v.clone() for k, v in oracle.state_dict().items()}
    state["classifier.weight"], state["classifier.bias"] = weight, bias
    return state, oracle


def tiny_bert_batch(seed=5, batch=4, seq=7, config=TINY_BERT):
    """(input_ids, attention_mask, labels); the first sentence is padded after 5 tokens when seq > 5."""
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, config["vocab_size"], (batch, seq), generator=generator)
    mask = torch.ones(batch, seq, dtype=torch.long)
    mask[0, 5:] = 0  # one padded sentence
    ids[0, 5:] = 0
    labels = torch.randint(0, config["num_labels"], (batch,), generator=generator)
    return ids, mask, labels


def sentence_pairs(mask, first=3):
    """token_type_ids for sentence pairs: segment 0 for the first ``first`` tokens, 1 for the rest of the real
    tokens, 0 on padding, as a BERT tokenizer gives for a pair."""
    types = torch.zeros_like(mask)
    types[:, first:] = 1
    return types * mask


def decoder_state(vocab, hidden, num_layers, max_len, generator, positions=True):
    """The grader's weights for a TransformerDecoder, under the notebook's parameter names. Layer norms get
    weights away from 1 and 0, so that a norm skipped or applied twice shows."""
    H = hidden
    state = {"embedding.weight": seeded((vocab, H), generator)}
    if positions:
        state["positions.weight"] = seeded((max_len, H), generator)
    for i in range(num_layers):
        for block in ("self_attention", "source_attention"):
            for name, value in random_dot_state(H, generator).items():
                state[f"{block}.{i}.{name}"] = value
        state[f"feed_forward.{i}.0.weight"] = seeded((2 * H, H), generator, 1 / math.sqrt(H))
        state[f"feed_forward.{i}.0.bias"] = seeded((2 * H,), generator, 0.1)
        state[f"feed_forward.{i}.2.weight"] = seeded((H, 2 * H), generator, 1 / math.sqrt(2 * H))
        state[f"feed_forward.{i}.2.bias"] = seeded((H,), generator, 0.1)
    for j in range(3 * num_layers):
        state[f"norms.{j}.weight"] = 1 + seeded((H,), generator, 0.2)
        state[f"norms.{j}.bias"] = seeded((H,), generator, 0.2)
    state["out.weight"] = seeded((vocab, H), generator, 1 / math.sqrt(H))
    state["out.bias"] = seeded((vocab,), generator, 0.1)
    return state
