"""Feeds the low-rank branch x.detach() ("only A and B should learn from this branch"): A and B still get
their gradients, but the gradient with respect to the input misses the adapter's contribution, so the
layers below (and their adapters) are trained on a wrong gradient once B is non-zero.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        return self.base(x) + self.scaling * ((x.detach() @ self.lora_A.T) @ self.lora_B.T)
