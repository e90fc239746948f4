"""Names the head's layer self.linear instead of the skeleton's self.decoder, so its parameters are
head.linear.* and weights saved under the contracted names no longer load.

question: transformer_model_tests
replaces: transformer_model
"""
import math

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm


class TransformerBase(nn.Module):
    """Token embedding -> positional encoding -> stack of causal self-attention layers.

    Attributes (the tests load weights by these names):
      self.embedding   = nn.Embedding(ntoken, nhid)
      self.pos_encoder = PositionalEncoding(nhid, dropout)
      self.encoder     = nn.TransformerEncoder of `nlayers` copies of
                         nn.TransformerEncoderLayer(nhid, nhead, dim_feedforward=nhid, dropout=dropout,
                         batch_first=True); pass enable_nested_tensor=False to nn.TransformerEncoder.
    forward(src, src_mask): src (batch, seq) token ids, src_mask (seq, seq) float mask from
    generate_square_subsequent_mask. Multiply the embeddings by sqrt(nhid) before adding the positions.
    Returns hidden states of shape (batch, seq, nhid).
    init_weights(): embedding weights uniform in [-0.1, 0.1].
    """

    def __init__(self, ntoken, nhead, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.nhid = nhid
        self.embedding = nn.Embedding(ntoken, nhid)
        self.pos_encoder = PositionalEncoding(nhid, dropout)
        layer = nn.TransformerEncoderLayer(nhid, nhead, dim_feedforward=nhid, dropout=dropout,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.init_weights()

    def init_weights(self):
        nn.init.uniform_(self.embedding.weight, -0.1, 0.1)

    def forward(self, src, src_mask):
        x = self.embedding(src) * math.sqrt(self.nhid)   # (batch, seq, nhid)
        x = self.pos_encoder(x)                           # (batch, seq, nhid)
        return self.encoder(x, mask=src_mask)             # (batch, seq, nhid)


class ClassificationHead(nn.Module):
    """A linear map from hidden states to class scores: self.decoder = nn.Linear(nhid, nclasses).

    forward(hidden): (..., nhid) -> (..., nclasses). For language modelling nclasses = ntoken.
    init_weights(): decoder weight uniform in [-0.1, 0.1], decoder bias zero.
    """

    def __init__(self, nhid, nclasses):
        super().__init__()
        self.linear = nn.Linear(nhid, nclasses)
        self.init_weights()

    def init_weights(self):
        nn.init.uniform_(self.linear.weight, -0.1, 0.1)
        nn.init.zeros_(self.linear.bias)

    def forward(self, hidden):
        return self.linear(hidden)


class Model(nn.Module):
    """self.base = TransformerBase(...), self.head = ClassificationHead(nhid, nclasses).

    forward(src, src_mask, lengths=None), batch-first:
      lengths is None (language modelling): scores for every position, shape (batch, seq, nclasses).
      lengths given (classification): lengths[b] is the number of real tokens in row b (padding sits
        at the end). Read the hidden state at position lengths[b] - 1, the last real token, and return
        the head's scores there, shape (batch, nclasses).
    Our solution for the three classes is about 20 lines.
    """

    def __init__(self, ntoken, nhead, nhid, nlayers, nclasses, dropout=0.2):
        super().__init__()
        self.base = TransformerBase(ntoken, nhead, nhid, nlayers, dropout)
        self.head = ClassificationHead(nhid, nclasses)

    def init_weights(self):
        self.base.init_weights()
        self.head.init_weights()

    def forward(self, src, src_mask, lengths=None):
        hidden = self.base(src, src_mask)                      # (batch, seq, nhid)
        if lengths is None:
            return self.head(hidden)                           # (batch, seq, nclasses)
        rows = torch.arange(src.size(0), device=src.device)
        last = hidden[rows, lengths.to(src.device) - 1]        # (batch, nhid)
        return self.head(last)                                 # (batch, nclasses)
