"""The demo: a class of students made from the committed notebooks (``students``: reference, blank, buggy,
shortcut and damaged), the stand-in hub that serves tiny models and datasets offline (``standin_hub``), and
``course demo`` itself (``run``: release, grade through both doors, export, compare)."""

# Students with one mistake each in the demo's class of an assignment (`course demo --buggy N` changes it).
BUGGY = 1
