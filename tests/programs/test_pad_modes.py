"""np.pad's copying modes (edge, wrap, symmetric, reflect) against NumPy itself, on every axis
length 1..5 and every pair of widths 0..11 (and an empty axis): NumPy 1.24 fills a pad wider than the axis in rounds,
each copying from what the rounds before filled, so wrap, symmetric and reflect are periodic only
while the pads are narrow, and shapelab must fill them as NumPy does. Where NumPy refuses (an
empty axis with a width), shapelab must report a shape error."""
import json

import numpy as np
import pytest

from shapelab_run import run_program



@pytest.mark.parametrize("mode", ["edge", "wrap", "symmetric", "reflect"])
def test_pad_mode_agrees_with_numpy(mode):
    # (An empty axis: a few cases, each an error where padded; a run stops after 100 errors.)
    cases = [(0, 0, 0), (0, 1, 0), (0, 0, 2), (0, 3, 3)] + [(L, b, a) for L in range(1, 6) for b in range(12) for a in range(12)]
    lines = ["param L, B, A", "x = input((L,), int64)", f"y = np.pad(x, (B, A), mode='{mode}')"]
    for L, b, a in cases:
        values = "[" + ", ".join(str(10 + k) for k in range(L)) + "]"
        lines.append(f":eval y with L={L}, B={b}, A={a}, x={values}")
    out = run_program(lines)
    replies = [r for r in map(json.loads, out.stdout.splitlines()) if r.get("command") == "eval"]
    assert len(replies) == len(cases), out.stdout[-2000:] + out.stderr
    for (L, b, a), r in zip(cases, replies):
        x = np.arange(10, 10 + L)
        try:
            want = np.pad(x, (b, a), mode=mode)
        except ValueError:
            assert "error" in r and r["error"]["kind"] == "shape", f"L={L}, B={b}, A={a}: {r}"
            continue
        assert "error" not in r, f"L={L}, B={b}, A={a}: {r}"
        assert r["value"] == want.tolist(), f"L={L}, B={b}, A={a}: {r['value']} != {want.tolist()}"
