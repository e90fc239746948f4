"""Hands the whole computation to PyTorch's own multi-head attention function with the contract's weights.

question: multi_head_attention_tests
replaces: multi_head_attention
"""
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    """Multi-head self-attention (the contract's attribute names, PyTorch's computation)."""

    def __init__(self, embed_dim, n_heads, attn_drop_rate):
        super().__init__()
        self.n_heads = n_heads
        self.attn_drop_rate = attn_drop_rate
        self.qkv_proj = nn.Linear(embed_dim, 3 * embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, embedding, mask=None):
        x = embedding.transpose(0, 1)                                      # (seq, batch, E): PyTorch's layout
        out, _ = F.multi_head_attention_forward(
            x, x, x, x.size(-1), self.n_heads, self.qkv_proj.weight, self.qkv_proj.bias, None, None, False,
            self.attn_drop_rate, self.o_proj.weight, self.o_proj.bias, training=self.training,
            key_padding_mask=mask, need_weights=False)
        return out.transpose(0, 1)                                         # (batch, seq, E)
