"""Counts the batches as len(inputs) // batch_size, so the windows of a short last batch are left out of
the average: with 10 windows in batches of 3, the last window, a batch of one, is never measured.

question: train_lm_tests
replaces: train_lm
"""


def evaluate_lm(model, inputs, targets, batch_size=32):
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(inputs.size(0) // batch_size):
            x = inputs[i * batch_size : (i + 1) * batch_size].to(device)
            y = targets[i * batch_size : (i + 1) * batch_size].to(device)
            logits = model(x, mask)
            total += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum").item()
            count += y.numel()
    loss = total / count
    return loss, math.exp(loss)
