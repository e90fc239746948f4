"""Correct versions of the answer-cell definitions, swapped in by `stand_ins=(...)` for later questions.

Executed as a fresh module for each call, so it imports what it uses.
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
        scores = self.v(torch.tanh(self.Wq(queries).unsqueeze(2) + self.Wk(keys).unsqueeze(1))).squeeze(-1)
        weights = torch.softmax(scores, dim=-1)
        return weights @ values, weights


class ScaledDotAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.Wv = nn.Linear(hidden_size, hidden_size)

    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(self.hidden_size), dim=-1)
        return weights @ v, weights


class CausalScaledDotAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.Wv = nn.Linear(hidden_size, hidden_size)

    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        future = torch.ones(scores.shape[-2:], dtype=torch.bool, device=scores.device).triu(diagonal=1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return weights @ v, weights


class BertForSentenceClassification(BertModel):
    def __init__(self, config):
        super().__init__(config)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, labels=None, **kwargs):
        logits = self.classifier(super().forward(**kwargs).pooler_output)
        if labels is None:
            return (logits,)
        return (logits, F.cross_entropy(logits, labels))
