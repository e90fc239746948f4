"""What the grader computes to compare with: independent references for the rnn_attention hidden tests.
They run in the grader's process, never in student code."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from autograder.rnn_attention.inputs import TINY_BERT

GATES = ("r", "z", "n")  # the order in which nn.GRUCell / nn.GRU stack their weight blocks


def gru_cell_state(weight_ih, weight_hh, bias_ih, bias_hh, prefix=""):
    """Split PyTorch's stacked (r, z, n) GRU weights into MyGRUCell's six nn.Linear layers."""
    state = {}
    for block, gate in enumerate(GATES):
        rows = slice(block * weight_hh.shape[1], (block + 1) * weight_hh.shape[1])
        state[f"{prefix}Wi{gate}.weight"] = weight_ih[rows].detach().clone()
        state[f"{prefix}Wi{gate}.bias"] = bias_ih[rows].detach().clone()
        state[f"{prefix}Wh{gate}.weight"] = weight_hh[rows].detach().clone()
        state[f"{prefix}Wh{gate}.bias"] = bias_hh[rows].detach().clone()
    return state


def additive_attention(state, queries, keys, values):
    """v . tanh(Wq q + Wk k + b_k), softmax over keys; written independently of the notebook."""
    projected_q = torch.einsum("bkh,oh->bko", queries, state["Wq.weight"])
    projected_k = torch.einsum("bsh,oh->bso", keys, state["Wk.weight"]) + state["Wk.bias"]
    hidden = torch.tanh(projected_q[:, :, None, :] + projected_k[:, None, :, :])  # (B, k, S, H)
    scores = torch.einsum("bksh,h->bks", hidden, state["v.weight"][0])  # (B, k, S)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("bks,bsh->bkh", weights, values), weights


def dot_attention(state, queries, keys, values, causal=False, scale=True):
    """Projections with the Wq/Wk/Wv state, then F.scaled_dot_product_attention (and its weights)."""
    q = F.linear(queries, state["Wq.weight"], state["Wq.bias"])
    k = F.linear(keys, state["Wk.weight"], state["Wk.bias"])
    v = F.linear(values, state["Wv.weight"], state["Wv.bias"])
    factor = 1 / math.sqrt(q.shape[-1]) if scale else 1.0
    context = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=factor)
    scores = q @ k.transpose(1, 2) * factor
    if causal:
        future = torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    return context, torch.softmax(scores, dim=-1)


def classifier_after_sgd_step(state, ids, mask, labels, lr, encoder_trainable):
    """Logits (eval mode) of BertModel + linear classifier on pooler_output, after one SGD step on the
    mean cross-entropy; the encoder's weights move only when ``encoder_trainable``. Built from the
    grader's own state dict, so a test can check by behaviour which parameters a student's step moved."""
    from transformers import BertConfig, BertModel

    encoder = BertModel(BertConfig(**TINY_BERT))
    encoder.load_state_dict({k: v for k, v in state.items() if not k.startswith("classifier.")})
    weight = state["classifier.weight"].clone().requires_grad_(True)
    bias = state["classifier.bias"].clone().requires_grad_(True)
    parameters = [weight, bias] + (list(encoder.parameters()) if encoder_trainable else [])
    encoder.requires_grad_(encoder_trainable)
    optimizer = torch.optim.SGD(parameters, lr=lr)
    logits = F.linear(encoder(input_ids=ids, attention_mask=mask).pooler_output, weight, bias)
    F.cross_entropy(logits, labels).backward()
    optimizer.step()
    encoder.eval()
    with torch.no_grad():
        return F.linear(encoder(input_ids=ids, attention_mask=mask).pooler_output, weight, bias)


def lora_linear(x, weight, bias, a, b, alpha):
    """LoRA's adapted layer written out (Hu et al. 2022, section 4.1): x W^T + bias + (alpha / r) (x A^T) B^T, with r
    the number of rows of A. Autograd through it gives the reference gradients of A and B."""
    out = x @ weight.T + (alpha / a.shape[0]) * ((x @ a.T) @ b.T)
    return out if bias is None else out + bias


class _HandLoRA(torch.nn.Module):
    """The oracle's adapter: frozen copies of a layer's weight and bias, the grader's A and B as parameters."""

    def __init__(self, linear, a, b, alpha):
        super().__init__()
        self.weight, self.bias = linear.weight.detach().clone(), linear.bias.detach().clone()
        self.a, self.b = torch.nn.Parameter(a.clone()), torch.nn.Parameter(b.clone())
        self.alpha = alpha

    def forward(self, x):
        return lora_linear(x, self.weight, self.bias, self.a, self.b, self.alpha)


def lora_classifier_after_sgd_step(state, adapters, alpha, ids, mask, labels, lr, config=TINY_BERT):
    """Logits (eval mode) of BertModel + linear classifier on pooler_output, built from the grader's state, whose
    modules named in ``adapters`` ({name: (A, B)}) compute lora_linear with that A and B, after one SGD step
    on the mean cross-entropy in which only the adapters and the classifier train."""
    from transformers import BertConfig, BertModel

    encoder = BertModel(BertConfig(**config))
    encoder.load_state_dict({k: v for k, v in state.items() if not k.startswith("classifier.")})
    encoder.requires_grad_(False)
    trained = []
    for name, (a, b) in adapters.items():
        parent, child = name.rsplit(".", 1)
        hand = _HandLoRA(encoder.get_submodule(parent).get_submodule(child), a, b, alpha)
        setattr(encoder.get_submodule(parent), child, hand)
        trained += [hand.a, hand.b]
    weight = state["classifier.weight"].clone().requires_grad_(True)
    bias = state["classifier.bias"].clone().requires_grad_(True)
    optimizer = torch.optim.SGD(trained + [weight, bias], lr=lr)
    logits = F.linear(encoder(input_ids=ids, attention_mask=mask).pooler_output, weight, bias)
    F.cross_entropy(logits, labels).backward()
    optimizer.step()
    encoder.eval()
    with torch.no_grad():
        return F.linear(encoder(input_ids=ids, attention_mask=mask).pooler_output, weight, bias)


def bert_classifier_logits(state, ids, mask, config):
    """Logits (eval mode) of the grader's BertModel + linear classifier on pooler_output, nothing adapted."""
    from transformers import BertConfig, BertModel

    encoder = BertModel(BertConfig(**config)).eval()
    encoder.load_state_dict({k: v for k, v in state.items() if not k.startswith("classifier.")})
    with torch.no_grad():
        pooled = encoder(input_ids=ids, attention_mask=mask).pooler_output
    return F.linear(pooled, state["classifier.weight"], state["classifier.bias"])


def decoder_logits(state, inputs, annotations, num_layers):
    """The TransformerDecoder's forward on whole sequences, from its state dict: embedding plus learned
    positions (when the state has them), then per layer causal self-attention, attention over the
    annotations and a ReLU feed-forward network, each added back and layer-normalised. The full-prefix
    computation that cached decoding must reproduce at every position; written with torch's functional
    calls, independently of the notebook."""
    T = inputs.shape[1]
    x = F.embedding(inputs, state["embedding.weight"])  # (B, T, H)
    if "positions.weight" in state:
        x = x + state["positions.weight"][:T]

    def norm(x, j):
        return F.layer_norm(x, x.shape[-1:], state[f"norms.{j}.weight"], state[f"norms.{j}.bias"])

    def sub(prefix):
        return {name[len(prefix) :]: value for name, value in state.items() if name.startswith(prefix)}

    for i in range(num_layers):
        context, _ = dot_attention(sub(f"self_attention.{i}."), x, x, x, causal=True)
        x = norm(x + context, 3 * i)
        context, _ = dot_attention(sub(f"source_attention.{i}."), x, annotations, annotations)
        x = norm(x + context, 3 * i + 1)
        hidden = F.relu(F.linear(x, state[f"feed_forward.{i}.0.weight"], state[f"feed_forward.{i}.0.bias"]))
        x = norm(
            x + F.linear(hidden, state[f"feed_forward.{i}.2.weight"], state[f"feed_forward.{i}.2.bias"]), 3 * i + 2
        )
    return F.linear(x, state["out.weight"], state["out.bias"])  # (B, T, V)


def rms_norm(x, weight, eps=1e-6):
    """x / sqrt(mean(x^2) + eps) * weight over the last axis, in float64 (Zhang and Sennrich 2019, eq. 4); written
    independently of the notebook. Differentiable, so autograd through it gives the reference gradients."""
    x, weight = x.double(), weight.double()
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) / x.shape[-1] + eps) * weight


def rotary(x, positions, base=10000.0):
    """Rotary position embedding by complex multiplication, in float64: feature pairs (2i, 2i + 1) read as the
    complex number x_2i + i x_2i+1 and multiplied by exp(i positions[t] base^(-2i/hidden)) (Su et al. 2021,
    section 3.2); written independently of the notebook."""
    x = x.double()
    hidden = x.shape[-1]
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], hidden // 2, 2).contiguous())  # (..., seq, hidden/2)
    exponents = torch.arange(0, hidden, 2, dtype=torch.float64) / hidden
    angles = positions.double()[:, None] * torch.exp(-exponents * math.log(base))  # (seq, hidden/2)
    turned = pairs * torch.polar(torch.ones_like(angles), angles)
    return torch.view_as_real(turned).reshape(x.shape)
