# Writes the .npy files the golden scripts load, with NumPy (the independent writer of the format).
# Run: /usr/bin/python3 tests/programs/golden/make_data.py
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
np.save(os.path.join(here, "y.npy"), np.array([[0.5, 1.5, -2.0, 4.0]]))
np.save(os.path.join(here, "fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)))
np.save(os.path.join(here, "big_endian.npy"), np.arange(3, dtype=">f8"))
np.save(os.path.join(here, "complex.npy"), np.zeros(2, dtype=np.complex128))
with open(os.path.join(here, "truncated.npy"), "wb") as f:
    f.write(open(os.path.join(here, "y.npy"), "rb").read()[:-8])
