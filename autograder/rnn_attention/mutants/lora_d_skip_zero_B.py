"""The student skips the low-rank branch while B is still all zeros ("it adds nothing yet"); outputs are right,
but for a fresh adapter the branch is not in the graph, so after backward lora_B.grad is None (the reference gives
a nonzero gradient) and training can never move B away from zero.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "B: a trainable parameter of shape (out_features, rank), all zeros, so that the output equals base(x) until B is trained" ; "(gradients too ...)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        out = self.base(x)
        if self.lora_B.any():    # B starts at zero: the update is zero until B has been trained
            out = out + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
        return out
