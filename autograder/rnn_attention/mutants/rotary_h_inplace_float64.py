"""Works in a copy of x for float32 and bfloat16 (x.to(float32, copy=True)), but takes a float64 x as it is
("already in the working precision, no copy needed") and writes the turned pairs into it in place: a float64
x is overwritten with the result (and a float64 x that requires grad raises).

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "Leave x unmodified in every dtype (nothing in place on it, a float64 x included)"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    if x.dtype == torch.float64:
        work_x = x
    else:
        work_x = x.to(torch.float32, copy=True)
    work = work_x.dtype
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = work_x[..., 0::2].clone(), work_x[..., 1::2].clone()
    work_x[..., 0::2] = even * cos - odd * sin
    work_x[..., 1::2] = even * sin + odd * cos
    return work_x.to(x.dtype)
