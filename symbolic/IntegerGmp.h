// Bridge between Integer and GMP's mpz_t. Private to symbolic/: only .cpp files of this
// folder include it, so no other layer sees GMP.
#pragma once

#include <gmp.h>

#include <atomic>
#include <cstdint>

#include "symbolic/Integer.h"

namespace shapelab {

/// A big value: its count of references, then its limbs in the same block (`size` of them in
/// absolute value, least significant first, the sign that of `size`, as in an mpz_t).
struct Integer::Big {
  std::atomic<uint64_t> refs{1};
  int64_t size = 0; // within int, as an mpz_t's
  mp_limb_t *limbs() { return reinterpret_cast<mp_limb_t *>(this + 1); }
  const mp_limb_t *limbs() const { return reinterpret_cast<const mp_limb_t *>(this + 1); }
  /// A read-only mpz_t over the limbs, in `view`.
  mpz_srcptr read(mpz_t view) const { return mpz_roinit_n(view, limbs(), mp_size_t(size)); }
};
static_assert(sizeof(Integer::Big) % alignof(mp_limb_t) == 0, "the limbs follow the header aligned");

/// Writes `i` into an initialised mpz_t.
void toMpz(const Integer &i, mpz_t out);
/// Reads an mpz_t, normalising to the inline form when it fits.
Integer fromMpz(const mpz_t in);

} // namespace shapelab
