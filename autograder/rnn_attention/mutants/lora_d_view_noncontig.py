"""The student flattens the input with x.view(-1, in_features) instead of reshape; every contiguous input
works (empty ones too), but a non-contiguous x such as torch.randn(4, 2, 7).transpose(0, 1) raises in view.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "forward(x): x (..., in_features) with any number of leading axes (none too), of any size"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        flat = x.view(-1, self.base.in_features)                    # (N, in)
        out = self.base(flat) + self.scaling * (flat @ self.lora_A.T @ self.lora_B.T)
        return out.view(*x.shape[:-1], self.base.out_features)
