"""Runs a shapelab program given as lines (`shapelab run --json` on a temporary file), for the
tests that compare its replies with NumPy's. SHAPELAB names the binary (the build's by default)."""
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPELAB = os.environ.get("SHAPELAB", os.path.join(HERE, "..", "..", "build", "shapelab"))


def run_program(lines, timeout=300):
    """The finished `shapelab run --json` of the program (stdout: one JSON reply per line)."""
    with tempfile.NamedTemporaryFile("w", suffix=".shl", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        return subprocess.run([SHAPELAB, "run", "--json", path], capture_output=True, text=True, timeout=timeout)
    finally:
        os.unlink(path)
