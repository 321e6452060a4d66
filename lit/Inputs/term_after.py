"""term_after.py LINE CMD...: runs CMD in a process group of its own,
passes its output through, and once a line of it holds LINE waits a second
and sends SIGTERM to CMD (as a time limit would); then prints how CMD ended
("exit status N" or "killed by signal NAME"), as status.py does.  CMD gets
30 s to end after the signal (60 s in all to print LINE); then the whole
group is killed and "not ended" printed.  Whatever happens, nothing of the
group outlives the script."""
import os
import signal
import subprocess
import sys
import threading
import time

want = sys.argv[1].encode()
proc = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, start_new_session=True)
seen = threading.Event()


def pump():
    for line in proc.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
        if want in line:
            seen.set()


reader = threading.Thread(target=pump)
reader.start()
try:
    if seen.wait(60):
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
    status = proc.wait(30)
except subprocess.TimeoutExpired:
    status = None
finally:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
reader.join(10)
if status is None:
    print("not ended")
elif status < 0:
    print("killed by signal %s" % signal.Signals(-status).name)
else:
    print("exit status %d" % status)
