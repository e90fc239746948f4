"""Builds the stack as nn.Sequential(*[TransformerBlock(...)] * n_layers): the list holds the same block
n_layers times, so every layer shares one set of weights.

question: mini_bert_tests
replaces: mini_bert
"""


class MiniBERT(nn.Module):
    def __init__(self, n_layers, vocab_size, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size + 1, embed_dim)
        self.pos_encoding = PositionalEncoding(embed_dim, layer_drop_rate)
        self.blocks = nn.Sequential(*[TransformerBlock(embed_dim, n_heads, attn_drop_rate, layer_drop_rate)] * n_layers)
        self.head = nn.Linear(embed_dim, vocab_size)
