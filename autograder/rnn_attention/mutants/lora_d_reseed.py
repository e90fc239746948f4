"""Reading "each adapter gets its own draw", the student calls torch.seed() before drawing A to make it fresh;
that reseeds torch's global generator from the OS, so after torch.manual_seed(0) two identical constructions give
different A, and every later torch draw in the program is no longer reproducible.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "drawn from torch's random state, which the draw moves on (do not seed here, nor save and restore the state"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        torch.seed()                          # a fresh draw for every adapter
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
