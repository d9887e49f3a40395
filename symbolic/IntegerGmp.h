// Bridge between Integer and GMP's mpz_t. Private to symbolic/: only .cpp files of this
// folder include it, so no other layer sees GMP.
#pragma once

#include <gmp.h>

#include "symbolic/Integer.h"

namespace shapelab {

struct Integer::Big {
  mpz_t value;
  Big() { mpz_init(value); }
  ~Big() { mpz_clear(value); }
  Big(const Big &) = delete;
  Big &operator=(const Big &) = delete;
};

/// Writes `i` into an initialised mpz_t.
void toMpz(const Integer &i, mpz_t out);
/// Reads an mpz_t, normalising to the inline form when it fits.
Integer fromMpz(const mpz_t in);

} // namespace shapelab
