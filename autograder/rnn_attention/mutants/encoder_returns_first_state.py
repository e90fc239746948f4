"""Returns the state after the first character as the encoder's final hidden state.

question: gru_encoder_tests
replaces: gru_encoder
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
        annotations = torch.stack(states, dim=1)
        return annotations, annotations[:, 0]
