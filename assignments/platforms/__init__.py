"""The platforms the course hands grading to, each built and tested the way that platform installs it:
Gradescope's autograder bundle and the runner in its container (``gradescope/``), PrairieLearn's external
grader (``prairielearn/``), the grader image both run (``grader_image``), a command under a container's
limits (``container_limits``), and Slurm and Kubernetes for a class graded in shards (``cluster``)."""
