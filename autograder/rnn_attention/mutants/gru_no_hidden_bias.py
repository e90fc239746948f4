"""Builds the hidden-to-hidden layers without biases, thinking the input layers' biases are enough.

question: gru_cell_tests
replaces: gru_cell
contract: all six layers are nn.Linear with a bias
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
