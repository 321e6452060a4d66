"""flip-byte.py FILE OFFSET: inverts the lowest bit of the byte at OFFSET
(a damaged checkpoint file for the checkpoint tests)."""
import sys

with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    b = f.read(1)
    f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 1]))
