"""Runs the frozen base layer inside torch.no_grad() ("it is frozen, no need to track it"); the output
is right, but no gradient flows back through the base path to x, so in BERT the adapters and layers before
this one get wrong gradients.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            base_out = self.base(x)
        return base_out + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
