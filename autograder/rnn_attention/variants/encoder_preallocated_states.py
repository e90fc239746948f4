"""Writes each state into a preallocated (batch, seq, hidden) tensor by index assignment instead of
stacking a list; autograd records the copies, so gradients still flow through time.

question: gru_encoder_tests
replaces: gru_encoder
"""


class GRUEncoder(nn.Module):
    def forward(self, inputs):
        embedded = self.embedding(inputs)
        annotations = embedded.new_zeros(inputs.size(0), inputs.size(1), self.hidden_size)
        hidden = embedded.new_zeros(inputs.size(0), self.hidden_size)
        for t in range(inputs.size(1)):
            hidden = self.gru(embedded[:, t], hidden)
            annotations[:, t] = hidden
        return annotations, hidden
