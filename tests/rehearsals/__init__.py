"""The platforms rehearsed for real, each run by its own make target (the Makefile says which): the
notebooks in Colab's runtimes, Gradescope's install on each Python, the grader image under podman, and a
Slurm cluster. `make test` leaves them out, all but the pins files' check."""
