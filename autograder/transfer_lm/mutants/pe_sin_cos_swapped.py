"""Puts the cosines in the even columns and the sines in the odd ones.

question: positional_encoding_tests
replaces: positional_encoding
"""
import math

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm


class PositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal position signal to a batch of embeddings, then applies dropout.

    Layout: batch-first. forward(x) takes x of shape (batch, seq, d_model) and returns the same shape.
    pe[pos, 2i] = sin(pos / 10000^(2i / d_model)) and pe[pos, 2i + 1] = cos(pos / 10000^(2i / d_model)).
    Store the table as a buffer named `pe` of shape (max_len, d_model) (self.register_buffer): it is
    part of the state dict but NOT a trainable parameter. d_model is even.
    Our solution is about 7 lines.
    """

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]              # (max_len, 1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]      # (1, d_model / 2)
        angle = pos / torch.pow(10000.0, two_i / d_model)                      # (max_len, d_model / 2)
        pe = torch.stack([angle.cos(), angle.sin()], dim=-1).flatten(1)        # (max_len, d_model): sin, cos, ...
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)])                          # (batch, seq, d_model)
