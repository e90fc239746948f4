"""Builds the hidden-to-hidden layers without biases, thinking the input layers' biases are enough.

question: gru_cell_tests
replaces: gru_cell
"""


class MyGRUCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.Wir = nn.Linear(input_size, hidden_size)
        self.Wiz = nn.Linear(input_size, hidden_size)
        self.Win = nn.Linear(input_size, hidden_size)
        self.Whr = nn.Linear(hidden_size, hidden_size, bias=False)
        self.Whz = nn.Linear(hidden_size, hidden_size, bias=False)
        self.Whn = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, x, h_prev):
        r = torch.sigmoid(self.Wir(x) + self.Whr(h_prev))
        z = torch.sigmoid(self.Wiz(x) + self.Whz(h_prev))
        n = torch.tanh(self.Win(x) + r * self.Whn(h_prev))
        return (1 - z) * n + z * h_prev
