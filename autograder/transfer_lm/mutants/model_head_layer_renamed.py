"""Names the head's layer self.linear instead of the skeleton's self.decoder, so its parameters are
head.linear.* and weights saved under the contracted names no longer load.

question: transformer_model_tests
replaces: transformer_model
contract: the head's layer is named decoder
"""


class ClassificationHead(nn.Module):
    def __init__(self, nhid, nclasses):
        super().__init__()
        self.linear = nn.Linear(nhid, nclasses)
        self.init_weights()

    def init_weights(self):
        nn.init.uniform_(self.linear.weight, -0.1, 0.1)
        nn.init.zeros_(self.linear.bias)

    def forward(self, hidden):
        return self.linear(hidden)
