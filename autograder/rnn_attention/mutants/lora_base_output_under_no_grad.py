"""Runs the frozen base layer under torch.no_grad() ("its weights are frozen, so there is nothing to track"):
the output values are right and A and B still get gradients, but no gradient flows back to the input x
through the base path, so in BERT every earlier layer (and its adapters) gets a wrong gradient.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            frozen = self.base(x)
        return frozen + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
