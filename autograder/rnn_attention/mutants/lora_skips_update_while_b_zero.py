"""Skips the low-rank branch while B is still all zeros ("it adds nothing anyway, save the two matmuls"):
the output values are right, but B then gets no gradient at the first step, so it stays zero and the
adapter never trains.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        if not self.lora_B.any():
            return self.base(x)
        return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
