"""Averages the per-batch mean losses in evaluate_lm, so the short last batch counts as much as a full
one, instead of averaging over tokens.

question: train_lm_tests
replaces: train_lm
"""


def evaluate_lm(model, inputs, targets, batch_size=32):
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    losses = []
    with torch.no_grad():
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size].to(device)
            y = targets[start : start + batch_size].to(device)
            losses.append(F.cross_entropy(model(x, mask).flatten(0, 1), y.flatten()).item())
    loss = sum(losses) / len(losses)
    return loss, math.exp(loss)
