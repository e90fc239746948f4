"""Builds the positional encoding as PositionalEncoding(embed_dim), so it keeps its default dropout of 0.1
instead of layer_drop_rate.

question: mini_bert_tests
replaces: mini_bert
contract: pos_encoding = PositionalEncoding(embed_dim, layer_drop_rate)
"""


class MiniBERT(nn.Module):
    def __init__(self, n_layers, vocab_size, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size + 1, embed_dim)
        self.pos_encoding = PositionalEncoding(embed_dim)
        self.blocks = nn.Sequential(*[TransformerBlock(embed_dim, n_heads, attn_drop_rate, layer_drop_rate)
                                      for _ in range(n_layers)])
        self.head = nn.Linear(embed_dim, vocab_size)
