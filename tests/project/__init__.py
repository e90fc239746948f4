"""The repository around the package: its two install files agree, the docs tools' lock, lint's reach,
and the suite's own hang backstop."""
