"""PrairieLearn's external grading: the question folder (``question``), the runner in the grader image
(``runner``), the ``results.json`` it writes (``results``) and a job under PrairieLearn's limits (``quota``)."""
