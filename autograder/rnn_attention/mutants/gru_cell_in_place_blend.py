"""Blends the candidate and the old state in place to save memory (n.mul_(1 - z).add_(z * h_prev)):
the values are right, but tanh saved n for its backward pass, so a backward through the cell fails.

question: gru_cell_tests
replaces: gru_cell
contract: no in-place changes to tensors autograd has saved
"""


class MyGRUCell(nn.Module):
    def forward(self, x, h_prev):
        r = torch.sigmoid(self.Wir(x) + self.Whr(h_prev))
        z = torch.sigmoid(self.Wiz(x) + self.Whz(h_prev))
        n = torch.tanh(self.Win(x) + r * self.Whn(h_prev))
        return n.mul_(1 - z).add_(z * h_prev)
