"""The student turns a single vector into a batch of one with unsqueeze(0) and undoes it with an unconditional
squeeze(0) at the end; any input whose first axis is 1, e.g. (1, 4, in) or (1, in), loses that axis:
(1, 4, 7) -> (4, 5) instead of (1, 4, 5).

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "x (..., in_features) with any number of leading axes ... -> (..., out_features)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        if x.dim() == 1:
            x = x.unsqueeze(0)            # a single vector: make it a batch of one
        out = self.base(x) + self.scaling * torch.matmul(torch.matmul(x, self.lora_A.T), self.lora_B.T)
        return out.squeeze(0)             # and drop that batch axis again
