"""The student flattens the leading axes to a 2-D batch and restores them with .view(*lead, -1); with an empty
batch (x of shape (0, in) or (2, 0, in)) the -1 is ambiguous for a 0-element tensor and view raises.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "x (..., in_features) with any number of leading axes (none too), of any size (0 too: an empty batch)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        lead = x.shape[:-1]
        flat = x.reshape(-1, x.shape[-1])                          # (N, in)
        out = self.base(flat) + self.scaling * ((flat @ self.lora_A.T) @ self.lora_B.T)   # (N, out)
        return out.view(*lead, -1)
