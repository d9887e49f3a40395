"""Drives `shapelab repl` through a pseudo-terminal: line editing is on (a terminal), a statement
and a command run, the up arrow recalls the last line from history, an error leaves the session
going, and :quit ends it with exit 0. Usage: repl_pty_test.py PATH/TO/shapelab"""
import os
import pty
import select
import sys
import time

import tempfile

shapelab = sys.argv[1]
history = os.path.join(tempfile.mkdtemp(), "history")  # this test's own, not the user's


def start():
    p, f = pty.fork()
    if p == 0:
        os.environ["TERM"] = "xterm"
        os.environ["SHAPELAB_HISTORY"] = history
        os.execv(shapelab, [shapelab, "repl"])
    return p, f


pid, fd = start()

output = b""


def read_until(token, timeout=10.0, count=1):
    """Reads until `token` has appeared `count` times in the whole output."""
    global output
    end = time.time() + timeout
    while output.count(token) < count:
        left = end - time.time()
        if left <= 0:
            raise SystemExit("FAIL: no %r in the REPL's output:\n%s" % (token, output.decode(errors="replace")))
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            output += chunk


def send(text):
    os.write(fd, text.encode())


read_until(b">>> ")
send("param n\r")
read_until(b">>> ", count=2)
send("x = input((n, 2), float64)\r")
read_until(b"x: (n, 2) float64, valid")  # an input exists: its limits are assumed
read_until(b">>> ", count=3)
send(":shape x + 1.0\r")
read_until(b"x + 1.0: shape", count=1)
read_until(b">>> ", count=4)
send("\x1b[A\r")  # the up arrow recalls ":shape x + 1.0" from history
read_until(b"x + 1.0: shape", count=2)
read_until(b">>> ", count=5)
send("y = x +\r")
read_until(b"expected an expression")
send(":eval x with n=1, x=[[1.5, 2.5]]\r")
read_until(b"[[1.5, 2.5]]")
# A statement over several lines: an open bracket (and a final backslash) continue it at "... ".
send("z = np.concatenate([x,\r")
read_until(b"... ")
send("                    x], axis=0) \\\r")
read_until(b"... ", count=2)
send("    * 2.0\r")
read_until(b"z: (2*n, 2) float64, valid")
# `;` separates statements; :help of one op.
send("a = x[0]; b = a + 1\r")
read_until(b"b: (2,) float64")
send(":help reshape\r")
read_until(b"shape rule: element count kept")
# Tab completion: an op after `np.linalg.`, a command after ':', a name of the session.
send("s = np.linalg.sv\t")
time.sleep(0.3)
send("(x)[1]\r")
read_until(b"s: (min(2, n),) float64")
send(":exp\t")
time.sleep(0.3)
send("s\r")
read_until(b"s: shape (min(2, n),)")
send(":shape zz = 1\r")  # (an error, to separate what follows)
send("q = s\t")
time.sleep(0.3)
send(" + 1.0\r")
read_until(b"q: (min(2, n),) float64")
send(":quit\r")
_, status = os.waitpid(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    raise SystemExit("FAIL: exit status %d" % os.waitstatus_to_exitcode(status))
# A second session recalls the first one's lines (the last two were "q = s + 1.0" and ":quit").
os.close(fd)
pid, fd = start()
output = b""
read_until(b">>> ")
send("\x1b[A\x1b[A\r")  # two lines back (past ":quit"): "q = s + 1.0", and s is unknown here
read_until(b"name 's' is not defined")
send(":quit\r")
_, status = os.waitpid(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    raise SystemExit("FAIL: second session's exit status %d" % os.waitstatus_to_exitcode(status))
print("ok   repl through a pseudo-terminal (editing, history recall, errors, continuation lines, ';', :help NAME, tab completion, history kept across sessions, :quit)")
