"""Clips the gradient norm to 0.5 as PyTorch's transformer tutorial does, ignoring the clip argument:
right at the default, wrong for any other value.

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="train", disable=not progress, leave=False):
        x = inputs[start : start + batch_size].to(device)
        y = targets[start : start + batch_size].to(device)
        logits = model(x, mask)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count
