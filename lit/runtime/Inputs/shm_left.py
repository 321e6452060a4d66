"""Fails, naming them, when /dev/shm still holds objects whose names begin
with the prefix that the output file given prints after "node objects: "."""
import os
import re
import sys

text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
m = re.search(r"node objects: (\S+)", text)
if not m:
    sys.exit("no 'node objects:' line in %s" % sys.argv[1])
left = sorted(f for f in os.listdir("/dev/shm") if f.startswith(m.group(1)))
if left:
    sys.exit("left in /dev/shm: %s" % " ".join(left))
