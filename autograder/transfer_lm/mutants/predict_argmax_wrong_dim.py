"""Takes the arg-max over the batch dimension (dim=0) instead of over the classes.

question: finetune_tests
replaces: finetune
"""
import math

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm


def train_classifier(model, inputs, lengths, labels, optimizer, batch_size=32, progress=True):
    """One epoch of classification training, batch-first.

    inputs (N, seq) token ids right-padded with 0, lengths (N,) real lengths, labels (N,) class ids.
    Visit the rows in a random order (torch.randperm); for each batch call
    model(x, mask, lengths_of_batch) with the causal mask, cross-entropy against the labels, zero the
    gradients, backward, optimizer step. Training mode; a tqdm bar unless progress=False.
    Return the mean loss per example over the epoch (a float).
    Our solution is about 15 lines.
    """
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    order = torch.randperm(inputs.size(0))
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="fine-tune", disable=not progress, leave=False):
        pick = order[start : start + batch_size]
        x, n, y = inputs[pick].to(device), lengths[pick].to(device), labels[pick].to(device)
        logits = model(x, mask, n)                              # (batch, nclasses)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count


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
