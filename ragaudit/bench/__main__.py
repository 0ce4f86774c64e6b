import argparse
import sys

from ragaudit.bench import add_arguments, run

parser = argparse.ArgumentParser(prog="python -m ragaudit.bench")
add_arguments(parser)
raise SystemExit(run(parser.parse_args(sys.argv[1:])))
