"""Initialises A with a Gaussian of standard deviation 0.01 (the LoRA paper says "random Gaussian
initialization for A"): random and small, but not bounded: at wide layers (in_features of a few thousand,
bound 1/sqrt(in) below 0.02) entries fall outside +-1/sqrt(in_features).

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: every entry of A within +-1/sqrt(in_features) at any width (kaiming_uniform_ with a=sqrt(5))
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.normal_(self.lora_A, std=0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
