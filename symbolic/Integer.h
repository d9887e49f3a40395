// Integer — an exact integer of any size with an int64_t fast path.
//
// Model: the mathematical integers Z. Example: Integer(INT64_MAX) + 1 == 2^63 exactly, and
// Integer::parse("-170141183460469231731687303715884105728") round-trips.
// Invariant: a value that fits in int64_t is always stored inline (`big_` is null), and a
// value stored in `big_` never fits in int64_t. Equality and hashing therefore never have to
// look at both forms. The big form is immutable and shared, so copies are cheap.
// Cost: small-by-small arithmetic is a checked machine operation; only a big result allocates
// (one block: GMP computes into scratch numbers each thread keeps). Division and remainder are floor division and the matching non-negative-divisor
// modulo, as in Python (`-7 // 2 == -4`, `-7 % 2 == 1`).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace shapelab {

class Integer {
public:
  Integer() = default;
  Integer(int64_t value) : small_(value) {} // NOLINT: implicit on purpose, like a literal
  Integer(int value) : small_(value) {}     // NOLINT

  /// Decimal text, optional leading '-'. Throws UserError on anything else.
  static Integer parse(const std::string &decimal);
  /// Decimal text; returns nullopt instead of throwing.
  static std::optional<Integer> tryParse(const std::string &decimal);

  bool fitsInt64() const { return !big_; }
  /// The value as int64_t, or nullopt when it does not fit.
  std::optional<int64_t> tryToInt64() const;
  /// The value as int64_t; throws OverflowError naming `what` when it does not fit.
  int64_t toInt64Checked(const char *what = "integer") const;
  /// Nearest double; lossy by name, for display and statistics only — never for shapes.
  double toDoubleLossy() const;
  std::string toString() const;
  /// Number of bits of |value| (0 for 0): the size limits of expressions are stated in bits.
  std::size_t bitLength() const;

  int sign() const;
  bool isZero() const { return !big_ && small_ == 0; }
  bool isOne() const { return !big_ && small_ == 1; }

  Integer operator-() const;
  friend Integer operator+(const Integer &a, const Integer &b);
  friend Integer operator-(const Integer &a, const Integer &b);
  friend Integer operator*(const Integer &a, const Integer &b);
  Integer &operator+=(const Integer &o) { return *this = *this + o; }
  Integer &operator-=(const Integer &o) { return *this = *this - o; }
  Integer &operator*=(const Integer &o) { return *this = *this * o; }

  /// Floor division; `divisor` must be non-zero (throws UserError otherwise).
  static Integer floorDiv(const Integer &a, const Integer &divisor);
  /// Truncating division: {q, r} with a = q*divisor + r, q rounded toward zero, r of a's sign
  /// (or 0) and |r| < |divisor|; `divisor` must be non-zero (throws UserError otherwise).
  static std::pair<Integer, Integer> truncDivRem(const Integer &a, const Integer &divisor);
  /// Remainder with the sign of the divisor (Python's %); divisor non-zero.
  static Integer floorMod(const Integer &a, const Integer &divisor);
  static Integer abs(const Integer &a) { return a.sign() < 0 ? -a : a; }
  static Integer gcd(const Integer &a, const Integer &b);
  /// a**exponent for a small non-negative exponent.
  static Integer pow(const Integer &a, uint32_t exponent);

  friend int compare(const Integer &a, const Integer &b);
  friend bool operator==(const Integer &a, const Integer &b) { return compare(a, b) == 0; }
  friend bool operator!=(const Integer &a, const Integer &b) { return compare(a, b) != 0; }
  friend bool operator<(const Integer &a, const Integer &b) { return compare(a, b) < 0; }
  friend bool operator<=(const Integer &a, const Integer &b) { return compare(a, b) <= 0; }
  friend bool operator>(const Integer &a, const Integer &b) { return compare(a, b) > 0; }
  friend bool operator>=(const Integer &a, const Integer &b) { return compare(a, b) >= 0; }

  std::size_t hash() const;

  /// Opaque arbitrary-precision storage (a count of references and the limbs, in one block),
  /// defined in IntegerGmp.h (seen only by symbolic/'s sources that use GMP).
  struct Big;
  const Big *bigStorage() const { return big_.get(); }

private:
  friend class ProductSum;
  friend Integer fromBigStorage(Big *adopted);
  /// A counted reference to an immutable Big: copying takes a reference, the last one frees it.
  class BigRef {
  public:
    BigRef() = default;
    explicit BigRef(Big *adopted) : p_(adopted) {}
    BigRef(const BigRef &o) : p_(o.p_) { if (p_) retain(p_); }
    BigRef(BigRef &&o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    BigRef &operator=(const BigRef &o) {
      BigRef copy(o);
      std::swap(p_, copy.p_);
      return *this;
    }
    BigRef &operator=(BigRef &&o) noexcept {
      std::swap(p_, o.p_);
      return *this;
    }
    ~BigRef() { if (p_) release(p_); }
    const Big *get() const { return p_; }
    const Big *operator->() const { return p_; }
    explicit operator bool() const { return p_ != nullptr; }

  private:
    static void retain(Big *b);
    static void release(Big *b);
    Big *p_ = nullptr;
  };
  int64_t small_ = 0;
  BigRef big_;
};

/// A sum of products a*b built in place: small terms add in a 128-bit word, and once the sum
/// leaves it, GMP multiplies and adds into one number of its own (mpz_addmul), so that the
/// products are never made as Integers of their own (each a big value would be an allocation,
/// as would each partial sum).
/// Example: `ProductSum s; s.add(a, b); s.add(c, d); Integer v = s.take();` gives a*b + c*d.
class ProductSum {
public:
  ProductSum();
  ~ProductSum();
  ProductSum(const ProductSum &) = delete;
  ProductSum &operator=(const ProductSum &) = delete;
  void add(const Integer &a, const Integer &b);
  /// The sum, which then starts again from 0.
  Integer take();

private:
  struct Big;
  __int128 small_ = 0;
  bool isBig_ = false;
  std::unique_ptr<Big> big_; // made the first time the sum leaves 128 bits, then kept
};

} // namespace shapelab

template <> struct std::hash<shapelab::Integer> {
  std::size_t operator()(const shapelab::Integer &i) const { return i.hash(); }
};
