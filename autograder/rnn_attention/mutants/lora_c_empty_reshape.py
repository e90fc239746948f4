"""The student flattens to (N, in_features) with reshape and restores the leading axes with reshape(*lead, -1):
correct for every non-empty input, but an empty batch such as torch.randn(0, 7) raises "cannot reshape tensor of
0 elements into shape [0, -1]" where the reference returns an empty (0, 5) tensor.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "forward(x): x (..., in_features) with any number of leading axes (none too) -> (..., out_features)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        flat = x.reshape(-1, self.base.in_features)                                    # (N, in)
        out = self.base(flat) + self.scaling * ((flat @ self.lora_A.T) @ self.lora_B.T)  # (N, out)
        return out.reshape(*x.shape[:-1], -1)
