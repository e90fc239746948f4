"""Adds up the loss tensors themselves (total += loss * y.numel()) instead of loss.item(): the number is
right, but train_lm returns a tensor that holds the graph of every batch of the epoch, which the
notebook's list of losses then keeps alive epoch after epoch.

question: train_lm_tests
replaces: train_lm
contract: train_lm returns the mean loss as a Python float
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
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total = total + loss * y.numel()
        count += y.numel()
    return total / count
