"""Passes attn_drop_rate to the attention whether or not the module is training, so dropout (F.dropout
defaults to training=True) stays on in eval mode.

question: multi_head_attention_tests
replaces: multi_head_attention
"""

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = embed_dim // n_heads
        self.attn_drop_rate = attn_drop_rate
        self.qkv_proj = nn.Linear(embed_dim, 3 * embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = self.qkv_proj(embedding).split(E, dim=-1)
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        values, _ = scaled_dot_product(q, k, v, attn_drop_rate=self.attn_drop_rate, mask=mask)
        return self.o_proj(values.transpose(1, 2).reshape(B, S, E))
