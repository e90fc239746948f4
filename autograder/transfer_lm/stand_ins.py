"""Correct versions of the transfer_lm answer cells (the reference solution, markers removed).

Hidden tests pass ``stand_ins=(...)`` to swap these in for earlier questions, so that one mistake costs
points once. The grader also imports this module as its own reference implementation (oracle models).
Each definition is the source notebook's own (docstrings and comments may differ): the self-test compares
their syntax trees and grades this file as a student (autograder/README.md, "Stand-ins").
"""

import math

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm


def generate_square_subsequent_mask(size):
    """Causal attention mask for a sequence of `size` tokens.

    Returns a float tensor of shape (size, size): entry [i, j] is 0.0 where query position i may attend
    to key position j (j <= i: itself and the past) and float('-inf') where it may not (j > i: the
    future). The mask is added to the attention scores before the softmax, so -inf becomes weight 0.
    Build it yourself; do not call nn.Transformer.generate_square_subsequent_mask.
    Our solution is 2 lines.
    """
    blocked = torch.ones(size, size, dtype=torch.bool).triu(diagonal=1)  # True strictly above the diagonal
    return torch.zeros(size, size).masked_fill(blocked, float("-inf"))  # (size, size) float


class PositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal position signal to a batch of embeddings, then applies dropout.

    Layout: batch-first. forward(x) takes x of shape (batch, seq, d_model) and returns the same shape.
    pe[pos, 2i] = sin(pos / 10000^(2i / d_model)) and pe[pos, 2i + 1] = cos(pos / 10000^(2i / d_model)).
    Store the table as a buffer named `pe` of shape (max_len, d_model) (self.register_buffer): it is
    part of the state dict but NOT a trainable parameter. d_model is even.
    Our solution is about 7 lines.
    """

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]  # (max_len, 1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]  # (1, d_model / 2)
        angle = pos / torch.pow(10000.0, two_i / d_model)  # (max_len, d_model / 2)
        pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)  # (max_len, d_model): sin, cos, ...
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)])  # (batch, seq, d_model)


class TransformerBase(nn.Module):
    """Token embedding -> positional encoding -> stack of causal self-attention layers.

    Attributes (the tests load weights by these names):
      self.embedding   = nn.Embedding(ntoken, nhid)
      self.pos_encoder = PositionalEncoding(nhid, dropout)
      self.encoder     = nn.TransformerEncoder of `nlayers` copies of
                         nn.TransformerEncoderLayer(nhid, nhead, dim_feedforward=nhid, dropout=dropout,
                         batch_first=True); pass enable_nested_tensor=False to nn.TransformerEncoder.
    forward(src, src_mask): src (batch, seq) token ids, src_mask (seq, seq) float mask from
    generate_square_subsequent_mask. Multiply the embeddings by sqrt(nhid) before adding the positions.
    Returns hidden states of shape (batch, seq, nhid).
    init_weights(): embedding weights uniform in [-0.1, 0.1].
    """

    def __init__(self, ntoken, nhead, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.nhid = nhid
        self.embedding = nn.Embedding(ntoken, nhid)
        self.pos_encoder = PositionalEncoding(nhid, dropout)
        layer = nn.TransformerEncoderLayer(nhid, nhead, dim_feedforward=nhid, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.init_weights()

    def init_weights(self):
        nn.init.uniform_(self.embedding.weight, -0.1, 0.1)

    def forward(self, src, src_mask):
        x = self.embedding(src) * math.sqrt(self.nhid)  # (batch, seq, nhid)
        x = self.pos_encoder(x)  # (batch, seq, nhid)
        return self.encoder(x, mask=src_mask)  # (batch, seq, nhid)


class ClassificationHead(nn.Module):
    """A linear map from hidden states to class scores: self.decoder = nn.Linear(nhid, nclasses).

    forward(hidden): (..., nhid) -> (..., nclasses). For language modelling nclasses = ntoken.
    init_weights(): decoder weight uniform in [-0.1, 0.1], decoder bias zero.
    """

    def __init__(self, nhid, nclasses):
        super().__init__()
        self.decoder = nn.Linear(nhid, nclasses)
        self.init_weights()

    def init_weights(self):
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, hidden):
        return self.decoder(hidden)


class Model(nn.Module):
    """self.base = TransformerBase(...), self.head = ClassificationHead(nhid, nclasses).

    forward(src, src_mask, lengths=None), batch-first:
      lengths is None (language modelling): scores for every position, shape (batch, seq, nclasses).
      lengths given (classification): lengths[b] is the number of real tokens in row b (padding sits
        at the end). Read the hidden state at position lengths[b] - 1, the last real token, and return
        the head's scores there, shape (batch, nclasses).
    Our solution for the three classes is about 20 lines.
    """

    def __init__(self, ntoken, nhead, nhid, nlayers, nclasses, dropout=0.2):
        super().__init__()
        self.base = TransformerBase(ntoken, nhead, nhid, nlayers, dropout)
        self.head = ClassificationHead(nhid, nclasses)

    def init_weights(self):
        self.base.init_weights()
        self.head.init_weights()

    def forward(self, src, src_mask, lengths=None):
        hidden = self.base(src, src_mask)  # (batch, seq, nhid)
        if lengths is None:
            return self.head(hidden)  # (batch, seq, nclasses)
        rows = torch.arange(src.size(0), device=src.device)
        last = hidden[rows, lengths.to(src.device) - 1]  # (batch, nhid)
        return self.head(last)  # (batch, nclasses)


def make_lm_chunks(ids, seq_len):
    """Cut a 1-D LongTensor of token ids into next-token prediction examples.

    Returns (inputs, targets), both LongTensors of shape (nchunks, seq_len) with
    nchunks = (len(ids) - 1) // seq_len. Row k of inputs is ids[k*seq_len : (k+1)*seq_len]; row k of
    targets is the same window moved one token later, so targets[k, t] is the token that follows
    inputs[k, t]. Tokens that do not fill a whole chunk at the end are dropped. Do not modify `ids`.
    Our solution is 4 lines.
    """
    nchunks = (ids.numel() - 1) // seq_len
    inputs = ids[: nchunks * seq_len].view(nchunks, seq_len)  # (nchunks, seq_len)
    targets = ids[1 : nchunks * seq_len + 1].view(nchunks, seq_len)  # the same windows, one token later
    return inputs, targets


def train_lm(model, inputs, targets, optimizer, batch_size=32, clip=0.5, progress=True):
    """One epoch of next-token training over the chunks (batch-first, shapes (nchunks, seq)).

    For each batch of rows: logits = model(x, mask) with the causal mask from
    generate_square_subsequent_mask(seq), cross-entropy over every position against the targets,
    zero the gradients, backward, clip the gradient norm to `clip`, optimizer step. Put the model in
    training mode first; move batches to the model's device. Show a tqdm progress bar over batches
    unless progress=False. Return the mean loss per token over the epoch (a float).
    Our solution is about 15 lines.
    """
    model.train()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    for start in tqdm(range(0, inputs.size(0), batch_size), desc="train", disable=not progress, leave=False):
        x = inputs[start : start + batch_size].to(device)  # (batch, seq)
        y = targets[start : start + batch_size].to(device)  # (batch, seq)
        logits = model(x, mask)  # (batch, seq, ntoken)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        total += loss.item() * y.numel()
        count += y.numel()
    return total / count


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
            logits = model(x, mask)  # (batch, seq, ntoken)
            total += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum").item()
            count += y.numel()
    loss = total / count
    return loss, math.exp(loss)


def load_pretrained_base(model, lm_state_dict):
    """Copy every `base.` tensor of a language model's state dict into `model` (a classifier).

    lm_state_dict comes from a Model whose head has ntoken outputs; `model` has the same base
    configuration but a head with nclasses outputs. After the call every tensor under model.base
    equals the language model's; model.head is left exactly as it was (freshly initialized). Do not
    modify lm_state_dict. Return the model.
    Our solution is about 4 lines.
    """
    prefix = "base."
    base_state = {name[len(prefix) :]: tensor for name, tensor in lm_state_dict.items() if name.startswith(prefix)}
    model.base.load_state_dict(base_state)  # strict: every base tensor must be there, and nothing else
    return model


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
        logits = model(x, mask, n)  # (batch, nclasses)
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
            predictions.append(model(x, mask, n).argmax(dim=-1).cpu())  # (batch,)
    return torch.cat(predictions)


def count_trainable_parameters(model):
    """The number of scalar weights the optimizer would update: parameters with requires_grad=True.

    Frozen parameters (requires_grad=False) and buffers (like the positional table `pe`) do not count.
    Returns an int. Our solution is 1 line.
    """
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def formula_parameter_count(ntoken, nhid, nlayers, nhead, nclasses):
    """Trainable parameters of Model(ntoken, nhead, nhid, nlayers, nclasses), feed-forward width nhid,
    worked out on paper: return an int computed from the arguments with arithmetic only (do not build
    a model here). Our solution is about 6 lines.
    """
    embedding = ntoken * nhid  # one vector per token
    attention = (3 * nhid * nhid + 3 * nhid) + (nhid * nhid + nhid)  # packed q/k/v projection + output projection
    feed_forward = 2 * (nhid * nhid + nhid)  # two Linear(nhid, nhid), with biases
    norms = 2 * (2 * nhid)  # two LayerNorms, weight and bias each
    head = nhid * nclasses + nclasses
    return embedding + nlayers * (attention + feed_forward + norms) + head  # nhead changes nothing


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    """The log-probability the model gives each row's continuation: the sum, over the tokens after the
    prompt, of log p(token | every token before it).

    ids: LongTensor (batch, seq). Row b holds a prompt in ids[b, :prompt_lengths[b]], its continuation in
        ids[b, prompt_lengths[b]:lengths[b]], then padding up to seq. Tell them apart by prompt_lengths and
        lengths alone: any id of the vocabulary, the pad id 0 included, may stand at any position.
    logits: float tensor (batch, seq, ntoken), the model's scores for the same rows, model(ids, mask): the
        scores at position t are for the token at position t + 1, so token ids[b, t] is scored by
        logits[b, t - 1] (the shift), and logits[b, seq - 1] is never used. logits and ids need not be
        contiguous (a slice of a wider vocabulary, a transposed buffer): reshape them, do not view them.
    prompt_lengths, lengths: LongTensors (batch,) with 1 <= prompt_lengths[b] <= lengths[b] <= seq; seq may be
        as short as 2, or 1 (then every continuation is empty).
    Returns a tensor of shape (batch,), (1,) for one row, in logits' dtype (float32 or float64), on logits' device:
        out[b] = sum over t with prompt_lengths[b] <= t < lengths[b] of log_softmax(logits[b, t - 1])[ids[b, t]],
    a sum of log-softmaxes over the whole vocabulary (not of raw scores), stable for any scores a model gives:
    with scores in the hundreds or thousands, each position at its own level, the sums stay finite and exact
    (torch.log_softmax does that; log(softmax) and a hand-made log-sum-exp without each position's own maximum
    do not). Scores are finite and far from float32's limit of 3e38. Only logits[b, j] with
    prompt_lengths[b] - 1 <= j < lengths[b] - 1 count; the others (prompt, padding, the last position) may hold
    any such scores, which change nothing in the result and get no gradient. An empty continuation
    (prompt_lengths[b] == lengths[b]) gives 0.
    Keep the graph: DPO back-propagates through the result (no .item(), .detach(), torch.no_grad()), even when
    every continuation is empty (the gradient is then 0). Every tensor arrives on one device; make what you
    create there (device=logits.device). Do not modify the inputs, and keep nothing from one call to the next
    (each result depends on that call's arguments alone). Our solution is about 6 lines.
    """
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)  # (batch, seq - 1, ntoken)
    targets = ids[:, 1:]  # (batch, seq - 1): tokens 1 .. seq - 1
    token_log_probs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (batch, seq - 1)
    position = torch.arange(1, ids.size(1), device=logits.device)  # (seq - 1,): each target's position
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])  # (batch, seq - 1)
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)  # (batch,)


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    """Direct preference optimisation's loss for a batch of preference pairs (Rafailov et al., 2023).

    policy_chosen, policy_rejected, reference_chosen, reference_rejected: float tensors (pairs,), the sequence
        log-probabilities (sequence_logprob's sums) of each pair's chosen and rejected continuation under the
        policy (the model being tuned) and under the reference (its frozen copy), all of one dtype and device.
    beta: a positive number (an int or a float: 0.1, 0.5, 1, 2.5, ...).
    With margin[i] = (policy_chosen[i] - reference_chosen[i]) - (policy_rejected[i] - reference_rejected[i]),
        loss = the mean over the pairs of -log(sigmoid(beta * margin[i])).
    Returns a 0-dim tensor (also for one pair) in the inputs' dtype (float16, bfloat16, float32 or float64: work
        in another if you like, but cast the loss back), on their device.
    Numerically stable for a beta * margin of any size: it must stay finite, and its gradient too, at -1000
        (the pair's term is then 1000) and at +1000 (the term is 0). torch.log(torch.sigmoid(x)) is not: the
        sigmoid rounds to 0 and its log to -inf. F.logsigmoid is.
    The gradient is the formula's everywhere, at a margin of exactly 0 too (the start of training, when the
        policy equals the reference: d loss / d policy_chosen[i] = -beta / 2 / pairs there). A stable form written
        by hand with relu, abs or clamp can miss it, since torch gives those one slope at 0.
    The reference log-probabilities are constants: no gradient may reach them, even when they arrive with
        requires_grad=True or as the result of a graph (detach them: .detach() makes a new tensor). Do not modify
        the inputs, neither their values nor their autograd state: requires_grad and grad_fn stay as they came.
    Our solution is about 3 lines.
    """
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())  # (pairs,)
    return -F.logsigmoid(beta * margin).mean()  # 0-dim: the mean over pairs
