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


def wait_prompt(timeout=10.0):
    """Reads until the output ends with a fresh prompt, then gives the line editor a moment to
    reach its read: a Ctrl-C in the microseconds between the prompt and the read (the terminal
    still in cooked mode) is recorded, but no read is there to return."""
    global output
    end = time.time() + timeout
    while not output.rstrip(b" ").endswith(b">>>"):
        left = end - time.time()
        if left <= 0:
            raise SystemExit("FAIL: no prompt after:\n%s" % output[-2000:].decode(errors="replace"))
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            output += os.read(fd, 4096)
    time.sleep(0.2)


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
read_until(b"gives (m, n) float64, runtime-check: m >= 1")  # the example, run as it is shown
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
# Ctrl-C while typing drops the line (a continued statement too); the session goes on.
wait_prompt()
send("dropped = x +")
time.sleep(0.2)
send("\x03")
read_until(b"KeyboardInterrupt")
send("r = np.concatenate([x,\r")
read_until(b"... ", count=3)
time.sleep(0.2)  # (as wait_prompt: the editor reaches its read)
send("\x03")
read_until(b"KeyboardInterrupt", count=2)
send(":shape dropped\r")
read_until(b"name 'dropped' is not defined")
# Ctrl-C during a long evaluation (a product of 3000 x 3000 matrices takes minutes) stops it
# and keeps the session: x is still defined.
send("big = np.ones((n, n)) @ np.ones((n, n))\r")
read_until(b"big: (n, n) float64")
wait_prompt()
send(":eval big with n=3000\r")
time.sleep(1.5)
started = time.time()
send("\x03")
read_until(b"KeyboardInterrupt: the statement was stopped", count=1, timeout=5.0)
if time.time() - started > 3.0:
    raise SystemExit("FAIL: the evaluation took %.1f s to stop" % (time.time() - started))
send(":shape x\r")
read_until(b"x: shape (n, 2)")
# :load runs a script into the session; a file name after load(" completes.
script = os.path.join(tempfile.mkdtemp(), "loaded_script.shl")
with open(script, "w") as f:
    f.write("fromscript = x * 3.0\n")
send(":load " + script[:-5] + "\t")
time.sleep(0.3)
send("\r")
read_until(b"fromscript: (n, 2) float64")
read_until(b"loaded " + script.encode() + b": 1 statement")
send(":quit\r")
_, status = os.waitpid(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    raise SystemExit("FAIL: exit status %d" % os.waitstatus_to_exitcode(status))
# A second session recalls the first one's lines (the last two were ":load SCRIPT" and ":quit").
os.close(fd)
pid, fd = start()
output = b""
read_until(b">>> ")
send("\x1b[A\x1b[A\r")  # two lines back (past ":quit"): ":load SCRIPT", and x is unknown here
read_until(b"name 'x' is not defined")
send(":quit\r")
_, status = os.waitpid(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    raise SystemExit("FAIL: second session's exit status %d" % os.waitstatus_to_exitcode(status))
print("ok   repl through a pseudo-terminal (editing, history recall, errors, continuation lines, ';', :help NAME with its example, tab completion of ops, commands, names and files, Ctrl-C while typing and during an evaluation, :load, history kept across sessions, :quit)")
