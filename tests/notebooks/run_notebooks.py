#!/usr/bin/python3
"""Executes every notebook under notebooks/ with nbclient; a cell that raises fails the run.

    PYTHONPATH=<build>/python /usr/bin/python3 tests/notebooks/run_notebooks.py notebooks [PNG_FOLDER]

A notebook that plots must hold an image/png among its executed outputs; with PNG_FOLDER each
picture is written there.

The notebooks are committed without outputs (this script never writes them back).
"""
import base64
import os
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(folder, images=None):
    # The kernel runs in the notebook's folder: make the module path absolute.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        str(pathlib.Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    paths = sorted(pathlib.Path(folder).glob("*.ipynb"))
    if not paths:
        print(f"no notebooks in {folder}")
        return 1
    failed = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
            print(f"FAIL {path.name}: committed with outputs (clear them)")
            failed += 1
            continue
        start = time.time()
        try:
            NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        except CellExecutionError as e:
            print(f"FAIL {path.name}:\n{e}")
            failed += 1
            continue
        # A notebook that draws must show its pictures in its executed outputs.
        pictures = [base64.b64decode(o["data"]["image/png"]) for c in nb.cells if c.cell_type == "code"
                    for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        draws = any("plt." in c.source for c in nb.cells if c.cell_type == "code")
        if draws and not pictures:
            print(f"FAIL {path.name}: it plots, but no output holds an image/png")
            failed += 1
            continue
        if images:
            for k, png in enumerate(pictures):
                (images / f"{path.stem}-{k}.png").write_bytes(png)
        print(f"ok   {path.name} ({time.time() - start:.1f} s, {len(pictures)} picture(s))")
    return 1 if failed else 0


if __name__ == "__main__":
    # A second argument: a folder where each picture is written as a PNG (to look at them).
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "notebooks", out))
