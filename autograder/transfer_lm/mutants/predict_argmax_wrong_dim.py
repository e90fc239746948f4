"""Takes the arg-max over the batch dimension (dim=0) instead of over the classes.

question: finetune_tests
replaces: finetune
"""


def predict_classes(model, inputs, lengths, batch_size=64):
    """The predicted class (argmax of the scores) for every row: a LongTensor of shape (N,) on the CPU.

    Evaluation mode, no gradients, causal mask, batches of `batch_size` rows kept in order.
    Our solution is about 10 lines.
    """
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    predictions = []
    with torch.no_grad():
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size].to(device)
            n = lengths[start : start + batch_size].to(device)
            predictions.append(model(x, mask, n).argmax(dim=0).cpu())   # (batch,)
    return torch.cat(predictions)
