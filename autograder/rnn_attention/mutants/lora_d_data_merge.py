"""The student merges into a fresh weight each call but reads every tensor through .data (an old habit for
"frozen" weights), so the merged weight is detached from A and B: outputs are right, but after backward
lora_A.grad and lora_B.grad are None and the adapter never trains.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "A: a trainable parameter ... B: a trainable parameter ... (gradients too: evaluation mode is not torch.no_grad)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        # a new merged weight at every call; base.weight itself is never written
        weight = self.base.weight.data + self.scaling * (self.lora_B.data @ self.lora_A.data)
        return F.linear(x, weight, self.base.bias)
