"""Input checks given to learners: each ValueError names the problem with a phrase the suites look for.

- ``decoding``: the checks of the model layer and the end-to-end decoders (exercises 10-12, 25 and
  the models themselves);
- ``distill``: exercise 11's, under the names its text imports;
- ``adaptive``: exercise 27's rules.

The numpy and torch verify rules' checks (exercises 01-08) are ``speckata.validation`` and
``speckata.torch_validation``. Old paths (``speckata.models.checks``, ``speckata.adaptive_checks``,
...) still import these modules (speckata/moved.py).
"""
