"""The maintainers' trainers of the committed weights. THEY CONTAIN THE ANSWERS to exercises 11, 21 and 22.

Read them after solving. They live outside the ``speckata`` package on purpose: `kata grade`'s
sandbox mounts only that package, so learner code graded there cannot call them, and with
``--no-sandbox`` the worker's guard refuses every file of the repository outside it. Run each from
the repository root (``python -m trainers.train_medusa``, ``python -m trainers.train_eagle``,
``python -m trainers.train_smollm2_eagle``, and ``python -m trainers.train_layerskip``, exercise 23's second
target, which holds no answer), and ``python -m trainers.train_models`` (the target and the
drafts themselves, plain next-token training, no answer either).
"""
