"""Where a learner's sequence first departs from the reference's: one definition, in
speckata.grading.position_table, named here for the report modules that import it from tests/."""

from speckata.grading.position_table import first_difference

__all__ = ["first_difference"]
