"""Returns hidden.squeeze(0), as one does with nn.GRU's last state (1, batch, hidden); the cell's state is
already (batch, hidden), so a batch of one sentence loses its batch axis.

question: gru_encoder_tests
replaces: gru_encoder
contract: hidden is (batch, hidden_size) for any batch size, one included
"""


class GRUEncoder(nn.Module):
    def forward(self, inputs):
        B, S = inputs.shape
        embedded = self.embedding(inputs)
        hidden = embedded.new_zeros(B, self.hidden_size)
        states = []
        for t in range(S):
            hidden = self.gru(embedded[:, t], hidden)
            states.append(hidden)
        return torch.stack(states, dim=1), hidden.squeeze(0)
