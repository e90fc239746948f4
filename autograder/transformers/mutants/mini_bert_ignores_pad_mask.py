"""Passes None instead of pad_mask to the blocks, so real tokens attend to padding.

question: mini_bert_tests
replaces: mini_bert
"""

import torch.nn as nn


class MiniBERT(nn.Module):
    def __init__(self, n_layers, vocab_size, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size + 1, embed_dim)
        self.pos_encoding = PositionalEncoding(embed_dim, layer_drop_rate)
        self.blocks = nn.Sequential(*[TransformerBlock(embed_dim, n_heads, attn_drop_rate, layer_drop_rate)
                                      for _ in range(n_layers)])
        self.head = nn.Linear(embed_dim, vocab_size)

    def forward(self, tokens, pad_mask=None):
        embedding, _ = self.blocks((self.pos_encoding(self.embedding(tokens)), None))
        return self.head(embedding)
