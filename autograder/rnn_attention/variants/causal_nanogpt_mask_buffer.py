"""Builds the causal mask once in __init__ and keeps it as a registered (persistent) buffer named `bias`,
sliced to the sequence length in forward, as nanoGPT's CausalSelfAttention does; the tests load the
three layers' weights by name and leave the buffer alone.

question: causal_attention_tests
replaces: causal_attention
source: nanoGPT model.py (CausalSelfAttention, the non-flash path)
"""


class CausalScaledDotAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.Wv = nn.Linear(hidden_size, hidden_size)
        block_size = 1024
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, block_size, block_size))

    def forward(self, queries, keys, values):
        T = queries.size(1)
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return att @ v, att
