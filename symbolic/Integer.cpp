#include "symbolic/Integer.h"

#include <cmath>
#include <functional>

#include "symbolic/Errors.h"
#include "symbolic/IntegerGmp.h"

namespace shapelab {

void toMpz(const Integer &i, mpz_t out) {
  if (const Integer::Big *b = i.bigStorage()) {
    mpz_set(out, b->value);
    return;
  }
  // mpz_set_si takes a long; on LP64 that is int64_t, checked at compile time.
  static_assert(sizeof(long) == sizeof(int64_t), "shapelab assumes LP64");
  mpz_set_si(out, static_cast<long>(*i.tryToInt64()));
}

Integer fromMpz(const mpz_t in) {
  if (mpz_fits_slong_p(in)) return Integer(static_cast<int64_t>(mpz_get_si(in)));
  auto big = std::make_shared<Integer::Big>();
  mpz_set(big->value, in);
  return Integer::fromBig(std::move(big));
}

Integer Integer::fromBig(std::shared_ptr<const Big> big) {
  if (mpz_fits_slong_p(big->value)) return Integer(static_cast<int64_t>(mpz_get_si(big->value)));
  Integer r;
  r.big_ = std::move(big);
  return r;
}

namespace {

struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz &) = delete;
  Mpz &operator=(const Mpz &) = delete;
};

/// |v| as unsigned: defined for INT64_MIN too.
uint64_t magnitudeOf(int64_t v) { return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v); }

static_assert(GMP_NUMB_BITS == 64 && sizeof(mp_limb_t) == sizeof(uint64_t), "one 64-bit limb holds an int64_t");

/// An Integer read by GMP without a copy: a big value's own mpz, or a small one in a limb of its
/// own (mpz_roinit_n). Only for GMP's source arguments: never written, and it must outlive them.
/// Arithmetic on big values then allocates for its result alone (it copied both operands, and
/// then the result once more, before).
class MpzRead {
public:
  explicit MpzRead(const Integer &i) {
    if (const Integer::Big *b = i.bigStorage()) {
      p_ = b->value;
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

/// The value of `m`; where it does not fit in int64_t its limbs move into the result.
Integer taken(Mpz &m) {
  if (mpz_fits_slong_p(m.v)) return Integer(static_cast<int64_t>(mpz_get_si(m.v)));
  auto big = std::make_shared<Integer::Big>();
  mpz_swap(big->value, m.v);
  return Integer::fromBig(std::move(big));
}

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
  Mpz m;
  if (mpz_set_str(m.v, decimal.c_str(), 10) != 0) return std::nullopt;
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
  return mpz_get_d(big_->value);
}

std::string Integer::toString() const {
  if (!big_) return std::to_string(small_);
  std::string s(mpz_sizeinbase(big_->value, 10) + 2, '\0');
  mpz_get_str(s.data(), 10, big_->value);
  s.resize(std::char_traits<char>::length(s.c_str()));
  return s;
}

int Integer::sign() const {
  if (!big_) return (small_ > 0) - (small_ < 0);
  return mpz_sgn(big_->value);
}

Integer Integer::operator-() const {
  if (!big_ && small_ != INT64_MIN) return Integer(-small_);
  MpzRead x(*this);
  Mpz out;
  mpz_neg(out.v, x.get());
  return taken(out);
}

Integer operator+(const Integer &a, const Integer &b) {
  int64_t r;
  if (!a.big_ && !b.big_ && !__builtin_add_overflow(a.small_, b.small_, &r)) return Integer(r);
  MpzRead x(a), y(b);
  Mpz out;
  mpz_add(out.v, x.get(), y.get());
  return taken(out);
}

Integer operator-(const Integer &a, const Integer &b) {
  int64_t r;
  if (!a.big_ && !b.big_ && !__builtin_sub_overflow(a.small_, b.small_, &r)) return Integer(r);
  MpzRead x(a), y(b);
  Mpz out;
  mpz_sub(out.v, x.get(), y.get());
  return taken(out);
}

Integer operator*(const Integer &a, const Integer &b) {
  int64_t r;
  if (!a.big_ && !b.big_ && !__builtin_mul_overflow(a.small_, b.small_, &r)) return Integer(r);
  MpzRead x(a), y(b);
  Mpz out;
  mpz_mul(out.v, x.get(), y.get());
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
    Mpz out;
    setFrom128(out.v, v);
    return taken(out);
  }
  isBig_ = false;
  small_ = 0;
  // Copied out at its size (one allocation); the sum keeps its limbs for the next one, so that
  // it does not grow again by reallocation.
  Mpz out;
  mpz_set(out.v, big_->sum.v);
  mpz_set_ui(big_->sum.v, 0);
  return taken(out);
}

Integer Integer::floorDiv(const Integer &a, const Integer &d) {
  if (d.isZero()) throw UserError("integer division by zero");
  if (!a.big_ && !d.big_ && !(a.small_ == INT64_MIN && d.small_ == -1)) {
    int64_t q = a.small_ / d.small_;
    if ((a.small_ % d.small_ != 0) && ((a.small_ < 0) != (d.small_ < 0))) --q;
    return Integer(q);
  }
  MpzRead x(a), y(d);
  Mpz out;
  mpz_fdiv_q(out.v, x.get(), y.get());
  return taken(out);
}

std::pair<Integer, Integer> Integer::truncDivRem(const Integer &a, const Integer &d) {
  if (d.isZero()) throw UserError("integer division by zero");
  if (!a.big_ && !d.big_ && !(a.small_ == INT64_MIN && d.small_ == -1))
    return {Integer(a.small_ / d.small_), Integer(a.small_ % d.small_)};
  MpzRead x(a), y(d);
  Mpz q, r;
  mpz_tdiv_qr(q.v, r.v, x.get(), y.get());
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
  Mpz out;
  mpz_fdiv_r(out.v, x.get(), y.get());
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
  Mpz out;
  mpz_gcd(out.v, x.get(), y.get());
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
  Mpz out;
  mpz_pow_ui(out.v, x.get(), exponent);
  return taken(out);
}

int compare(const Integer &a, const Integer &b) {
  if (!a.big_ && !b.big_) return (a.small_ > b.small_) - (a.small_ < b.small_);
  // Invariant: a big value lies outside the int64 range, so its sign decides against a small one.
  if (!b.big_) return mpz_sgn(a.big_->value);
  if (!a.big_) return -mpz_sgn(b.big_->value);
  int c = mpz_cmp(a.big_->value, b.big_->value);
  return (c > 0) - (c < 0);
}

std::size_t Integer::bitLength() const {
  if (big_) return mpz_sizeinbase(big_->value, 2);
  if (small_ == 0) return 0;
  return 64 - std::size_t(__builtin_clzll(magnitudeOf(small_)));
}

std::size_t Integer::hash() const {
  if (!big_) return std::hash<int64_t>()(small_);
  std::size_t h = static_cast<std::size_t>(mpz_sgn(big_->value)) * 0x9e3779b97f4a7c15ULL;
  std::size_t n = mpz_size(big_->value);
  for (std::size_t i = 0; i < n; ++i)
    h = (h ^ static_cast<std::size_t>(mpz_getlimbn(big_->value, i))) * 0x100000001b3ULL;
  return h;
}

} // namespace shapelab
