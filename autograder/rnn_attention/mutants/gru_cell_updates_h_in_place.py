"""Updates the previous state in place to avoid a new tensor (h_prev.mul_(z).add_((1 - z) * n)): the new
state is right, but the caller's h_prev has been overwritten with it.

question: gru_cell_tests
replaces: gru_cell
contract: neither input is modified
"""


class MyGRUCell(nn.Module):
    def forward(self, x, h_prev):
        r = torch.sigmoid(self.Wir(x) + self.Whr(h_prev))
        z = torch.sigmoid(self.Wiz(x) + self.Whz(h_prev))
        n = torch.tanh(self.Win(x) + r * self.Whn(h_prev))
        with torch.no_grad():
            return h_prev.mul_(z).add_((1 - z) * n)
