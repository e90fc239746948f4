"""In evaluation mode the student merges B A into a fresh weight under torch.no_grad() ("eval is inference"): the
values are right at every call, but a backward pass in eval mode (as tests do on a model.eval() BERT to avoid
dropout) gives lora_A.grad and lora_B.grad = None instead of the reference's gradients.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "base(x) + (alpha / rank) * (x @ A^T) @ B^T, in training and evaluation mode alike"; "A: a trainable parameter"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        if self.training:
            return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
        with torch.no_grad():   # inference: fold the update into one new weight
            merged = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, merged, self.base.bias)
