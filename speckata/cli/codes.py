"""The exit codes of `kata`, as documented in `kata --help` and the README."""

OK = 0  # solved / done
FAILING = 1  # the exercise is failing, or its code ended the run (or: refused, cancelled, file missing)
USAGE = 2  # bad command line or unknown exercise id (argparse's own code)
NOT_ATTEMPTED = 3  # `kata check`: the exercise still raises NotImplementedError
GRADER_ERROR = 4  # the grading run itself broke (the suite did not collect, pytest crashed)
INTERRUPTED = 130  # Ctrl-C (except in `kata watch`, where it is the normal way out: 0)

EXIT_CODES_HELP = """exit codes:
  0  solved (check), or the command did what it was asked
  1  failing (check; also when your code ends the grading process: os._exit, a crash),
     or refused / cancelled (solution, reset)
  2  usage error: bad option or unknown exercise id
  3  not attempted (check): the exercise still raises NotImplementedError
  4  the grader could not run (the suite failed to load, pytest crashed)"""
