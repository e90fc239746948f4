"""The student merges the update into one weight built from .data (habit from writing parameter updates by hand):
the values are right in every mode, but autograd never sees A or B, so after out.sum().backward() lora_A.grad and
lora_B.grad are None and training leaves the adapter at B = 0.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "a trainable low-rank update"; "A: a trainable parameter"; "B: a trainable parameter ... so that the output equals base(x) until B is trained"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        delta = self.lora_B.data @ self.lora_A.data                 # (out, in)
        weight = self.base.weight.data + self.scaling * delta       # a new tensor at every call
        return F.linear(x, weight, self.base.bias)
