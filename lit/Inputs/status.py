"""Runs a command, passes its output through, then prints how it ended
("exit status N" or "killed by signal NAME") so FileCheck can check it."""
import signal
import subprocess
import sys

proc = subprocess.run(sys.argv[1:], stdout=sys.stdout, stderr=sys.stderr)
sys.stdout.flush()
sys.stderr.flush()
if proc.returncode < 0:
    print("killed by signal %s" % signal.Signals(-proc.returncode).name)
else:
    print("exit status %d" % proc.returncode)
