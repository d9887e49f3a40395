#include "symbolic/Integer.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <new>

#include "symbolic/Errors.h"
#include "symbolic/IntegerGmp.h"
#include "support/Slots.h"

namespace shapelab {

namespace {

/// The block of a Big with `limbs` limbs: the header, then the limbs (from detail::takeBytes, so
/// that the few-limb numbers of products and sums reuse blocks their thread freed).
std::size_t bigBytes(std::size_t limbs) { return sizeof(Integer::Big) + limbs * sizeof(mp_limb_t); }

/// |v| as unsigned: defined for INT64_MIN too.
uint64_t magnitudeOf(int64_t v) { return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v); }

static_assert(GMP_NUMB_BITS == 64 && sizeof(mp_limb_t) == sizeof(uint64_t), "one 64-bit limb holds an int64_t");
// mpz_get_si and mpz_fits_slong_p speak of long; on LP64 that is int64_t.
static_assert(sizeof(long) == sizeof(int64_t), "shapelab assumes LP64");

/// An Integer read by GMP without a copy: a big value's limbs, or a small one in a limb of its
/// own (mpz_roinit_n). Only for GMP's source arguments: never written, and it must outlive them.
class MpzRead {
public:
  explicit MpzRead(const Integer &i) {
    if (const Integer::Big *b = i.bigStorage()) {
      p_ = b->read(view_);
      return;
    }
    const int64_t v = *i.tryToInt64();
    limb_ = mp_limb_t(magnitudeOf(v));
    p_ = mpz_roinit_n(view_, &limb_, v < 0 ? -1 : v > 0 ? 1 : 0);
  }
  MpzRead(const MpzRead &) = delete;
  MpzRead &operator=(const MpzRead &) = delete;
  mpz_srcptr get() const { return p_; }

private:
  mp_limb_t limb_ = 0;
  mpz_t view_;
  mpz_srcptr p_ = nullptr;
};

struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz &) = delete;
  Mpz &operator=(const Mpz &) = delete;
};

/// Numbers each thread keeps for GMP to write results into: once they have grown to a result's
/// size, computing a big value allocates only the value's own block (copied out of them).
/// Example: `mpz_ptr out = scratch(0); mpz_mul(out, x, y); return taken(out);`. An operation
/// uses scratch(0), and scratch(1) for a second result; none calls another while it holds them.
mpz_ptr scratch(int i) {
  static thread_local Mpz numbers[2];
  return numbers[i].v;
}

} // namespace

Integer fromBigStorage(Integer::Big *adopted) {
  Integer r;
  r.big_ = Integer::BigRef(adopted);
  return r;
}

void Integer::BigRef::retain(Big *b) { b->refs.fetch_add(1, std::memory_order_relaxed); }
void Integer::BigRef::release(Big *b) {
  if (b->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const std::size_t bytes = bigBytes(std::size_t(b->size < 0 ? -b->size : b->size));
  b->~Big();
  detail::giveBytes(b, bytes);
}

namespace {
/// The value of `m` (left as it is): inline where it fits in int64_t, else a new Big holding a
/// copy of its limbs.
Integer taken(mpz_srcptr m) {
  if (mpz_fits_slong_p(m)) return Integer(static_cast<int64_t>(mpz_get_si(m)));
  const std::size_t n = mpz_size(m);
  void *block = detail::takeBytes(bigBytes(n));
  auto *b = new (block) Integer::Big();
  b->size = mpz_sgn(m) < 0 ? -int64_t(n) : int64_t(n);
  std::memcpy(b->limbs(), mpz_limbs_read(m), n * sizeof(mp_limb_t));
  return fromBigStorage(b);
}
} // namespace

void toMpz(const Integer &i, mpz_t out) { mpz_set(out, MpzRead(i).get()); }

Integer fromMpz(const mpz_t in) { return taken(in); }

namespace {

bool isDecimal(const std::string &s) {
  std::size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

} // namespace

std::optional<Integer> Integer::tryParse(const std::string &decimal) {
  if (!isDecimal(decimal)) return std::nullopt;
  // Up to 18 digits always fit in int64_t: read them without GMP (literals are mostly short).
  bool negative = decimal[0] == '-';
  if (decimal.size() - negative <= 18) {
    int64_t v = 0;
    for (std::size_t i = negative; i < decimal.size(); ++i) v = v * 10 + (decimal[i] - '0');
    return Integer(negative ? -v : v);
  }
  mpz_ptr m = scratch(0);
  if (mpz_set_str(m, decimal.c_str(), 10) != 0) return std::nullopt;
  return taken(m);
}

Integer Integer::parse(const std::string &decimal) {
  if (auto r = tryParse(decimal)) return *r;
  throw UserError("not a decimal integer: '" + decimal + "'");
}

std::optional<int64_t> Integer::tryToInt64() const {
  if (big_) return std::nullopt;
  return small_;
}

int64_t Integer::toInt64Checked(const char *what) const {
  if (big_)
    throw OverflowError(std::string(what) + " " + toString() +
                        " does not fit in a signed 64-bit integer");
  return small_;
}

double Integer::toDoubleLossy() const {
  if (!big_) return static_cast<double>(small_);
  mpz_t view;
  return mpz_get_d(big_->read(view));
}

std::string Integer::toString() const {
  if (!big_) return std::to_string(small_);
  mpz_t view;
  mpz_srcptr v = big_->read(view);
  std::string s(mpz_sizeinbase(v, 10) + 2, '\0');
  mpz_get_str(s.data(), 10, v);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return s;
}

int Integer::sign() const {
  if (!big_) return (small_ > 0) - (small_ < 0);
  return big_->size < 0 ? -1 : 1; // never zero
}

Integer Integer::operator-() const {
  if (!big_ && small_ != INT64_MIN) return Integer(-small_);
  MpzRead x(*this);
  mpz_ptr out = scratch(0);
  mpz_neg(out, x.get());
  return taken(out);
}

Integer operator+(const Integer &a, const Integer &b) {
  int64_t r;
  if (!a.big_ && !b.big_ && !__builtin_add_overflow(a.small_, b.small_, &r)) return Integer(r);
  MpzRead x(a), y(b);
  mpz_ptr out = scratch(0);
  mpz_add(out, x.get(), y.get());
  return taken(out);
}

Integer operator-(const Integer &a, const Integer &b) {
  int64_t r;
  if (!a.big_ && !b.big_ && !__builtin_sub_overflow(a.small_, b.small_, &r)) return Integer(r);
  MpzRead x(a), y(b);
  mpz_ptr out = scratch(0);
  mpz_sub(out, x.get(), y.get());
  return taken(out);
}

Integer operator*(const Integer &a, const Integer &b) {
  int64_t r;
  if (!a.big_ && !b.big_ && !__builtin_mul_overflow(a.small_, b.small_, &r)) return Integer(r);
  MpzRead x(a), y(b);
  mpz_ptr out = scratch(0);
  mpz_mul(out, x.get(), y.get());
  return taken(out);
}

struct ProductSum::Big {
  Mpz sum;
};
ProductSum::ProductSum() = default;
ProductSum::~ProductSum() = default;

namespace {
/// `v` into `out` (GMP has no 128-bit setter): its magnitude in two limbs.
void setFrom128(mpz_t out, __int128 v) {
  const bool negative = v < 0;
  const unsigned __int128 m = negative ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
  mpz_set_ui(out, static_cast<unsigned long>(m >> 64));
  mpz_mul_2exp(out, out, 64);
  mpz_add_ui(out, out, static_cast<unsigned long>(m & UINT64_MAX));
  if (negative) mpz_neg(out, out);
}
} // namespace

void ProductSum::add(const Integer &a, const Integer &b) {
  if (!isBig_ && !a.big_ && !b.big_) {
    // A product of two int64_t values fits in 127 bits; the sum may not.
    const __int128 p = (__int128)a.small_ * (__int128)b.small_;
    __int128 r;
    if (!__builtin_add_overflow(small_, p, &r)) {
      small_ = r;
      return;
    }
  }
  if (!isBig_) {
    if (!big_) big_ = std::make_unique<Big>();
    setFrom128(big_->sum.v, small_);
    isBig_ = true;
  }
  MpzRead x(a), y(b);
  mpz_addmul(big_->sum.v, x.get(), y.get());
}

Integer ProductSum::take() {
  if (!isBig_) {
    const __int128 v = small_;
    small_ = 0;
    if (v >= INT64_MIN && v <= INT64_MAX) return Integer(static_cast<int64_t>(v));
    mpz_ptr out = scratch(0);
    setFrom128(out, v);
    return taken(out);
  }
  isBig_ = false;
  small_ = 0;
  // Copied out at its size (one allocation); the sum keeps its limbs for the next one, so that
  // it does not grow again by reallocation.
  Integer r = taken(big_->sum.v);
  mpz_set_ui(big_->sum.v, 0);
  return r;
}

Integer Integer::floorDiv(const Integer &a, const Integer &d) {
  if (d.isZero()) throw UserError("integer division by zero");
  if (!a.big_ && !d.big_ && !(a.small_ == INT64_MIN && d.small_ == -1)) {
    int64_t q = a.small_ / d.small_;
    if ((a.small_ % d.small_ != 0) && ((a.small_ < 0) != (d.small_ < 0))) --q;
    return Integer(q);
  }
  MpzRead x(a), y(d);
  mpz_ptr out = scratch(0);
  mpz_fdiv_q(out, x.get(), y.get());
  return taken(out);
}

std::pair<Integer, Integer> Integer::truncDivRem(const Integer &a, const Integer &d) {
  if (d.isZero()) throw UserError("integer division by zero");
  if (!a.big_ && !d.big_ && !(a.small_ == INT64_MIN && d.small_ == -1))
    return {Integer(a.small_ / d.small_), Integer(a.small_ % d.small_)};
  MpzRead x(a), y(d);
  mpz_ptr q = scratch(0), r = scratch(1);
  mpz_tdiv_qr(q, r, x.get(), y.get());
  return {taken(q), taken(r)};
}

Integer Integer::floorMod(const Integer &a, const Integer &d) {
  if (d.isZero()) throw UserError("integer modulo by zero");
  if (!a.big_ && !d.big_) {
    if (d.small_ == -1) return Integer(0);
    int64_t r = a.small_ % d.small_;
    if (r != 0 && ((r < 0) != (d.small_ < 0))) r += d.small_;
    return Integer(r);
  }
  MpzRead x(a), y(d);
  mpz_ptr out = scratch(0);
  mpz_fdiv_r(out, x.get(), y.get());
  return taken(out);
}

Integer Integer::gcd(const Integer &a, const Integer &b) {
  if (!a.big_ && !b.big_) {
    // On magnitudes as unsigned, so |INT64_MIN| is no special case; the result is at most
    // 2**63, which fits in int64_t except for gcd(INT64_MIN, INT64_MIN or 0).
    uint64_t x = magnitudeOf(a.small_), y = magnitudeOf(b.small_);
    while (y != 0) {
      uint64_t r = x % y;
      x = y;
      y = r;
    }
    if (x <= uint64_t(INT64_MAX)) return Integer(int64_t(x));
  }
  MpzRead x(a), y(b);
  mpz_ptr out = scratch(0);
  mpz_gcd(out, x.get(), y.get());
  return taken(out);
}

Integer Integer::pow(const Integer &a, uint32_t exponent) {
  if (!a.big_) {
    // Machine integers while the result fits (the common case: small sizes in a search box).
    int64_t result = 1, base = a.small_;
    uint32_t e = exponent;
    bool overflow = false;
    while (e && !overflow) {
      if (e & 1) overflow |= __builtin_mul_overflow(result, base, &result);
      e >>= 1;
      if (e) overflow |= __builtin_mul_overflow(base, base, &base);
    }
    if (!overflow) return Integer(result);
  }
  MpzRead x(a);
  mpz_ptr out = scratch(0);
  mpz_pow_ui(out, x.get(), exponent);
  return taken(out);
}

int compare(const Integer &a, const Integer &b) {
  if (!a.big_ && !b.big_) return (a.small_ > b.small_) - (a.small_ < b.small_);
  // Invariant: a big value lies outside the int64 range, so its sign decides against a small one.
  if (!b.big_) return a.sign();
  if (!a.big_) return -b.sign();
  mpz_t va, vb;
  int c = mpz_cmp(a.big_->read(va), b.big_->read(vb));
  return (c > 0) - (c < 0);
}

std::size_t Integer::bitLength() const {
  if (big_) {
    mpz_t view;
    return mpz_sizeinbase(big_->read(view), 2);
  }
  if (small_ == 0) return 0;
  return 64 - std::size_t(__builtin_clzll(magnitudeOf(small_)));
}

std::size_t Integer::hash() const {
  if (!big_) return std::hash<int64_t>()(small_);
  std::size_t h = static_cast<std::size_t>(sign()) * 0x9e3779b97f4a7c15ULL;
  const std::size_t n = std::size_t(big_->size < 0 ? -big_->size : big_->size);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<std::size_t>(big_->limbs()[i])) * 0x100000001b3ULL;
  return h;
}

} // namespace shapelab
