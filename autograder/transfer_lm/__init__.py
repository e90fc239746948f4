"""Hidden tests of the transfer_lm assignment (causal transformer LM, head replacement, transfer)."""
