"""The real course's assignments as they stand: their catalogue entries, notebooks' switches and optional
parts, and the kernel-text budget on every hidden test."""
