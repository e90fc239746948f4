"""Correct versions of the transformers notebook's answer definitions.

A hidden test that needs an earlier answer asks for it with ``stand_ins=(...)``; for that call the
student's definition is replaced by the one here, so each mistake costs points on its own question only.
This file is executed on its own (standard library, torch and transformers only) and is also imported by
the tests as an oracle where no PyTorch module plays that part. Each definition is the source notebook's own
(the solution or, for DEVICE and PositionalEncoding, the provided cell; docstrings and comments may
differ): the self-test compares their syntax trees and grades this file as a student (autograder/README.md,
"Stand-ins").
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    head_dim = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(head_dim)  # (B, H, S, S)
    if mask is not None:
        padded_keys = mask.bool()[:, None, None, :]  # (B, 1, 1, S): key columns
        scores = scores.masked_fill(padded_keys, float("-inf"))
    attention = torch.softmax(scores, dim=-1)  # each row sums to 1
    attention = F.dropout(attention, p=attn_drop_rate)
    return attention @ v, attention


class MultiHeadAttention(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate):
        super().__init__()
        assert embed_dim % n_heads == 0, "embed_dim must be divisible by n_heads"
        self.embed_dim = embed_dim
        self.n_heads = n_heads
        self.head_dim = embed_dim // n_heads
        self.attn_drop_rate = attn_drop_rate
        self.qkv_proj = nn.Linear(embed_dim, 3 * embed_dim)
        self.o_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, embedding, mask=None):
        B, S, E = embedding.shape
        q, k, v = self.qkv_proj(embedding).split(E, dim=-1)  # 3 x (B, S, E)
        q, k, v = (t.view(B, S, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        rate = self.attn_drop_rate if self.training else 0.0
        values, _ = scaled_dot_product(q, k, v, attn_drop_rate=rate, mask=mask)  # (B, H, S, head_dim)
        values = values.transpose(1, 2).reshape(B, S, E)  # heads side by side
        return self.o_proj(values)


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=512):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len).unsqueeze(1)
        frequency = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * frequency)
        pe[:, 1::2] = torch.cos(position * frequency[: d_model // 2])
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)])


class TransformerBlock(nn.Module):
    def __init__(self, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.self_attn = MultiHeadAttention(embed_dim, n_heads, attn_drop_rate)
        self.dropout = nn.Dropout(layer_drop_rate)
        self.norm1 = nn.LayerNorm(embed_dim)
        self.linear_net = nn.Sequential(
            nn.Linear(embed_dim, 4 * embed_dim),
            nn.GELU(),
            nn.Linear(4 * embed_dim, embed_dim),
            nn.Dropout(layer_drop_rate),
        )
        self.norm2 = nn.LayerNorm(embed_dim)

    def forward(self, inputs):
        embedding, mask = inputs
        embedding = self.norm1(embedding + self.dropout(self.self_attn(embedding, mask)))
        embedding = self.norm2(embedding + self.linear_net(embedding))
        return embedding, mask


class MiniBERT(nn.Module):
    def __init__(self, n_layers, vocab_size, embed_dim, n_heads, attn_drop_rate, layer_drop_rate):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size + 1, embed_dim)
        self.pos_encoding = PositionalEncoding(embed_dim, layer_drop_rate)
        self.blocks = nn.Sequential(
            *[TransformerBlock(embed_dim, n_heads, attn_drop_rate, layer_drop_rate) for _ in range(n_layers)]
        )
        self.head = nn.Linear(embed_dim, vocab_size)

    def forward(self, tokens, pad_mask=None):
        embedding = self.pos_encoding(self.embedding(tokens))
        embedding, _ = self.blocks((embedding, pad_mask))
        return self.head(embedding)


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False, generator=None):
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
    labels = torch.where(selected, tokens, torch.full_like(tokens, -100))
    choice = torch.rand(tokens.shape, generator=generator)  # one independent draw per token
    if only_mask:
        choice = torch.zeros_like(choice)
    to_mask = selected & (choice < 0.8)
    to_random = selected & (choice >= 0.8) & (choice < 0.9)
    random_tokens = torch.randint(0, vocab_size - 1, tokens.shape, generator=generator)
    random_tokens = random_tokens + (random_tokens >= pad_token_id).long()  # skip over the pad id
    masked = torch.where(to_mask, torch.full_like(tokens, mask_token_id), tokens)
    masked = torch.where(to_random, random_tokens.to(tokens.dtype), masked)
    return masked, labels


def mlm_step(model, optimizer, tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, generator=None):
    model.train()
    masked, labels = mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id, mask_rate, generator=generator)
    logits = model(masked, pad_mask=tokens == pad_token_id)  # (B, S, V)
    loss = nn.CrossEntropyLoss(ignore_index=-100)(logits.reshape(-1, vocab_size), labels.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


class BERTGRUSentiment(nn.Module):
    def __init__(self, bert, hidden_dim, output_dim, n_layers, bidirectional, dropout):
        super().__init__()
        self.bert = bert
        for parameter in self.bert.parameters():
            parameter.requires_grad = False
        self.rnn = nn.GRU(
            bert.config.hidden_size,
            hidden_dim,
            num_layers=n_layers,
            bidirectional=bidirectional,
            batch_first=True,
            dropout=0 if n_layers < 2 else dropout,
        )
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(hidden_dim * (2 if bidirectional else 1), output_dim)

    def encode(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        self.bert.eval()  # frozen: no dropout either
        with torch.no_grad():
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    def head(self, features, attention_mask=None):
        B, S, _ = features.shape
        if attention_mask is None:
            lengths = torch.full((B,), S, dtype=torch.long)
        else:
            lengths = attention_mask.sum(dim=1).long().cpu()
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        _, hidden = self.rnn(packed)  # (layers * dirs, B, hidden_dim)
        final = torch.cat([hidden[-2], hidden[-1]], dim=-1) if self.rnn.bidirectional else hidden[-1]
        return self.out(self.dropout(final))

    def forward(self, input_ids=None, attention_mask=None, features=None):
        if features is None:
            features = self.encode(input_ids, attention_mask)
        return self.head(features, attention_mask)


def binary_accuracy(logits, y):
    predictions = torch.round(torch.sigmoid(logits))
    return (predictions == y).float().mean()


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
        optimizer.step()
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


def predict_sentiment(model, tokenizer, sentence):
    model.eval()
    encoded = tokenizer(sentence, return_tensors="pt", truncation=True, max_length=512)
    with torch.no_grad():
        logits = model(input_ids=encoded["input_ids"].to(DEVICE), attention_mask=encoded["attention_mask"].to(DEVICE))
    return torch.sigmoid(logits).item()
