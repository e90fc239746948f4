"""Batches the windows with a DataLoader over a TensorDataset (shuffle=False, so the rows stay in order,
though the loader draws a seed from torch's global generator), and evaluate_lm puts the model back in
the mode it found it in.

question: train_lm_tests
replaces: train_lm
"""


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    model.train()
    device = next(model.parameters()).device
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(inputs, targets), batch_size=batch_size)
    total, count = 0.0, 0
    for x, y in tqdm(loader, desc="train", disable=not progress, leave=False):
        x, y = x.to(device), y.to(device)
        logits = model(x, generate_square_subsequent_mask(x.size(1)).to(device))
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count


def evaluate_lm(model, inputs, targets, batch_size=32):
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(inputs), batch_size):
            x, y = inputs[start : start + batch_size].to(device), targets[start : start + batch_size].to(device)
            total += F.cross_entropy(model(x, mask).flatten(0, 1), y.flatten(), reduction="sum").item()
    model.train(was_training)
    loss = total / targets.numel()
    return loss, math.exp(loss)
