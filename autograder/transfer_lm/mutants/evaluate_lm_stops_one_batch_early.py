"""Ends the loop at range(0, len(inputs) - batch_size, batch_size) to keep the last slice from running
past the end: the windows of the last batch, the one that starts at len(inputs) - batch_size or later,
are left out of the average.

question: train_lm_tests
replaces: train_lm
"""


def evaluate_lm(model, inputs, targets, batch_size=32):
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    with torch.no_grad():
        for start in range(0, inputs.size(0) - batch_size, batch_size):
            x = inputs[start : start + batch_size].to(device)
            y = targets[start : start + batch_size].to(device)
            logits = model(x, mask)
            total += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum").item()
            count += y.numel()
    loss = total / count
    return loss, math.exp(loss)
