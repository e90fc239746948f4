"""Correct versions of the answer-cell definitions, swapped in by `stand_ins=(...)` for later questions.

Executed as a fresh module for each call, so it imports what it uses. Each definition is the source
notebook's own (its solution, markers removed; docstrings and comments may differ): the self-test compares
their syntax trees and grades this file as a student (autograder/README.md, "Stand-ins").
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import BertModel


class MyGRUCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.Wir = nn.Linear(input_size, hidden_size)
        self.Wiz = nn.Linear(input_size, hidden_size)
        self.Win = nn.Linear(input_size, hidden_size)
        self.Whr = nn.Linear(hidden_size, hidden_size)
        self.Whz = nn.Linear(hidden_size, hidden_size)
        self.Whn = nn.Linear(hidden_size, hidden_size)

    def forward(self, x, h_prev):
        r = torch.sigmoid(self.Wir(x) + self.Whr(h_prev))
        z = torch.sigmoid(self.Wiz(x) + self.Whz(h_prev))
        n = torch.tanh(self.Win(x) + r * self.Whn(h_prev))
        return (1 - z) * n + z * h_prev


class GRUEncoder(nn.Module):
    def __init__(self, vocab_size, hidden_size):
        super().__init__()
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.gru = MyGRUCell(hidden_size, hidden_size)

    def forward(self, inputs):
        B, S = inputs.shape
        embedded = self.embedding(inputs)
        hidden = embedded.new_zeros(B, self.hidden_size)
        states = []
        for t in range(S):
            hidden = self.gru(embedded[:, t], hidden)
            states.append(hidden)
        return torch.stack(states, dim=1), hidden


class AdditiveAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size, bias=False)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.v = nn.Linear(hidden_size, 1, bias=False)

    def forward(self, queries, keys, values):
        q = self.Wq(queries).unsqueeze(2)  # (B, k, 1, H)
        k = self.Wk(keys).unsqueeze(1)  # (B, 1, S, H)
        scores = self.v(torch.tanh(q + k)).squeeze(-1)  # (B, k, S)
        weights = torch.softmax(scores, dim=-1)  # (B, k, S)
        return weights @ values, weights  # (B, k, H), (B, k, S)


class ScaledDotAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.Wv = nn.Linear(hidden_size, hidden_size)

    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)  # (B, k, H), (B, S, H), (B, S, H)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)  # (B, k, S)
        weights = torch.softmax(scores, dim=-1)  # (B, k, S)
        return weights @ v, weights  # (B, k, H), (B, k, S)


class CausalScaledDotAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.Wv = nn.Linear(hidden_size, hidden_size)

    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)  # (B, T, H) each
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)  # (B, T, T)
        T_q, T_k = scores.shape[-2:]
        future = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).triu(diagonal=1)  # j > i
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)  # (B, T, T)
        return weights @ v, weights  # (B, T, H), (B, T, T)


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)  # (B, new, H)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)  # (B, new, H) each
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)  # (B, past + new, H)
        values = torch.cat([cache[1], values], dim=1)  # (B, past + new, H)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)  # (B, new, past + new)
    new, total = scores.shape[-2:]
    # query i is position total - new + i: it may see keys j <= total - new + i
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)  # (B, new, past + new)
    return weights @ values, (keys, values)  # (B, new, H), cache


class BertForSentenceClassification(BertModel):
    def __init__(self, config):
        super().__init__(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()  # transformers initialises the new layer's weights (required by transformers 5)

    def forward(self, labels=None, **kwargs):
        outputs = super().forward(**kwargs)
        logits = self.classifier(outputs.pooler_output)  # (B, num_labels)
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))

    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
