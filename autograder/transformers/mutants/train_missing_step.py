"""Computes the gradients but never calls optimizer.step(), so the model never changes.

question: train_eval_loops_tests
replaces: train_eval_loops
"""
import torch


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    total_loss, total_accuracy = 0.0, 0.0
    for batch in loader:
        batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
        labels = batch.pop("labels")
        logits = model(**batch).squeeze(1)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        total_loss += loss.item()
        total_accuracy += binary_accuracy(logits.detach(), labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)


def evaluate(model, loader, criterion):
    model.eval()
    total_loss, total_accuracy = 0.0, 0.0
    with torch.no_grad():
        for batch in loader:
            batch = {name: tensor.to(DEVICE) for name, tensor in batch.items()}
            labels = batch.pop("labels")
            logits = model(**batch).squeeze(1)
            total_loss += criterion(logits, labels).item()
            total_accuracy += binary_accuracy(logits, labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
