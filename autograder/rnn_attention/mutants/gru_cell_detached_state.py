"""Detaches h_prev inside the cell "to stop gradients from exploding", so nothing flows back to earlier
steps through the state: every value is right, but training through time is cut at each step.

question: gru_cell_tests
replaces: gru_cell
contract: gradients flow back to x, h_prev and every weight (no detach)
"""


class MyGRUCell(nn.Module):
    def forward(self, x, h_prev):
        h_prev = h_prev.detach()
        r = torch.sigmoid(self.Wir(x) + self.Whr(h_prev))
        z = torch.sigmoid(self.Wiz(x) + self.Whz(h_prev))
        n = torch.tanh(self.Win(x) + r * self.Whn(h_prev))
        return (1 - z) * n + z * h_prev
