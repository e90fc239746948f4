"""Reports perplexity as 2 ** loss, although the cross-entropy is measured in nats.

question: train_lm_tests
replaces: train_lm
"""


def evaluate_lm(model, inputs, targets, batch_size=32):
    """Mean next-token cross-entropy per token over ALL chunks, and the perplexity exp(loss).

    Evaluation mode, no gradients, causal mask. Note that the last batch may be smaller than the
    others: average over tokens, not over batches. Returns (loss, perplexity) as two floats.
    Our solution is about 12 lines.
    """
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    with torch.no_grad():
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size].to(device)
            y = targets[start : start + batch_size].to(device)
            logits = model(x, mask)                             # (batch, seq, ntoken)
            total += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum").item()
            count += y.numel()
    loss = total / count
    return loss, 2 ** loss
