"""benchmarks/ keeps working: each benchmark's quick mode, and the instruments the figures come from."""
