"""The student flattens the leading axes with .view(-1, in_features) and views back: fine on the contiguous inputs
of the visible check, but a transposed input such as torch.randn(4, 2, 7).transpose(0, 1) (shape (2, 4, 7))
raises "view size is not compatible with input tensor's size and stride".

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "forward(x): x (..., in_features) with any number of leading axes (none too) -> (..., out_features)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        lead = x.shape[:-1]
        flat = x.view(-1, self.base.in_features)                                    # (N, in)
        out = self.base(flat) + self.scaling * ((flat @ self.lora_A.T) @ self.lora_B.T)
        return out.view(*lead, self.base.out_features)
