"""Sizes the embedding for the ordinary ids only (vocab_size rows), forgetting the extra row for [MASK],
whose id is vocab_size.

question: mini_bert_tests
replaces: mini_bert
contract: the embedding has vocab_size + 1 rows, the last for [MASK]
"""


class MiniBERT(nn.Module):
    def __init__(self, n_layers, vocab_size, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.pos_encoding = PositionalEncoding(embed_dim, layer_drop_rate)
        self.blocks = nn.Sequential(*[TransformerBlock(embed_dim, n_heads, attn_drop_rate, layer_drop_rate)
                                      for _ in range(n_layers)])
        self.head = nn.Linear(embed_dim, vocab_size)
