"""The autograder's own tests: the reference keeps full marks, the blank release scores zero, each
mutant (``mutation``) loses points on its own question only, each variant keeps full marks, and every
hidden test catches a mutant (``checks``)."""
