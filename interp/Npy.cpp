// NumPy's .npy format: "\x93NUMPY", a version (1.0: 2-byte header length; 2.0/3.0: 4-byte), a
// Python dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } padded to a
// multiple of 64 bytes with spaces and a newline, then the raw data.
#include <cstring>
#include <fstream>
#include <sstream>

#include "interp/Array.h"
#include "symbolic/Errors.h"

namespace shapelab::interp {

namespace {
constexpr DType kDTypes[] = {DType::Bool,  DType::Int8,   DType::Int16,  DType::Int32,   DType::Int64,   DType::UInt8,
                             DType::UInt16, DType::UInt32, DType::UInt64, DType::Float16, DType::Float32, DType::Float64};

/// NumPy's little-endian type string of a dtype ('|' where the byte order does not matter).
const char *descrOf(DType t) {
  switch (t) {
  case DType::Bool: return "|b1";
  case DType::Int8: return "|i1";
  case DType::Int16: return "<i2";
  case DType::Int32: return "<i4";
  case DType::Int64: return "<i8";
  case DType::UInt8: return "|u1";
  case DType::UInt16: return "<u2";
  case DType::UInt32: return "<u4";
  case DType::UInt64: return "<u8";
  case DType::Float16: return "<f2";
  case DType::Float32: return "<f4";
  default: return "<f8";
  }
}


bool littleEndianHost() {
  uint16_t probe = 1;
  unsigned char b;
  std::memcpy(&b, &probe, 1);
  return b == 1;
}

/// A tiny reader of the header dict: keys 'descr', 'fortran_order', 'shape' in any order.
struct HeaderReader {
  const std::string &text;
  const std::string &what;
  std::size_t pos = 0;
  [[noreturn]] void fail(const std::string &why) const {
    throw UserError(what + ": not a .npy header NumPy writes: " + why + " at byte " + std::to_string(pos) +
                    " of \"" + printable(text) + "\"");
  }
  void skip() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n')) ++pos;
  }
  bool accept(char c) {
    skip();
    if (pos < text.size() && text[pos] == c) return ++pos, true;
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  std::string string() {
    skip();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"')) fail("expected a string");
    char q = text[pos++];
    std::size_t end = text.find(q, pos);
    if (end == std::string::npos) fail("unterminated string");
    std::string s = text.substr(pos, end - pos);
    pos = end + 1;
    return s;
  }
  int64_t integer() {
    skip();
    std::size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
    if (start == pos || pos - start > 18) fail("expected a dimension");
    return std::stoll(text.substr(start, pos - start));
  }
};

} // namespace

Array parseNpy(const std::string &bytes, const std::string &what) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw UserError(what + ": not a .npy file (no \\x93NUMPY magic)");
  int major = static_cast<unsigned char>(bytes[6]);
  std::size_t headerLength, start;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) | (std::size_t(static_cast<unsigned char>(bytes[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw UserError(what + ": truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i) headerLength |= std::size_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    start = 12;
  } else {
    throw UserError(what + ": unsupported .npy format version " + std::to_string(major));
  }
  if (bytes.size() < start + headerLength) throw UserError(what + ": truncated .npy header");
  std::string header = bytes.substr(start, headerLength);
  HeaderReader r{header, what};
  std::string descr;
  std::optional<bool> fortran;
  std::optional<std::vector<int64_t>> shape;
  r.expect('{');
  while (!r.accept('}')) {
    std::string key = r.string();
    r.expect(':');
    if (key == "descr") {
      descr = r.string();
    } else if (key == "fortran_order") {
      r.skip();
      if (header.compare(r.pos, 4, "True") == 0) fortran = true, r.pos += 4;
      else if (header.compare(r.pos, 5, "False") == 0) fortran = false, r.pos += 5;
      else r.fail("fortran_order must be True or False");
    } else if (key == "shape") {
      r.expect('(');
      shape.emplace();
      while (!r.accept(')')) {
        shape->push_back(r.integer());
        if (!r.accept(',')) {
          r.expect(')');
          break;
        }
      }
    } else {
      r.fail("unknown key '" + key + "'");
    }
    if (!r.accept(',')) {
      r.expect('}');
      break;
    }
  }
  if (descr.empty() || !fortran || !shape) r.fail("descr, fortran_order and shape are all required");
  DType t = DType::Bool;
  bool known = false;
  for (DType d : kDTypes)
    if (descr == descrOf(d) || (ops::itemSize(d) == 1 && descr == "<" + std::string(descrOf(d)).substr(1))) t = d, known = true;
  if (known) {
  } else if (descr.size() > 1 && descr[0] == '>')
    throw UserError(what + ": big-endian data ('" + descr + "') is not supported; save it little-endian");
  else throw UserError(what + ": dtype '" + descr + "' is not one of " + ops::dtypeList() + " (little-endian)");
  if (!littleEndianHost()) throw UserError(what + ": this machine is big-endian");
  std::vector<int64_t> dims = *shape;
  if (*fortran) std::reverse(dims.begin(), dims.end());
  Array a(t, dims);
  std::size_t bytesNeeded = std::size_t(a.size()) * ops::itemSize(t);
  std::size_t dataStart = start + headerLength;
  if (bytes.size() - dataStart < bytesNeeded)
    throw UserError(what + ": the data is truncated (" + std::to_string(bytes.size() - dataStart) + " bytes for " +
                    std::to_string(bytesNeeded) + ")");
  std::memcpy(a.base<char>(), bytes.data() + dataStart, bytesNeeded);
  if (t == DType::Bool) {
    const unsigned char *p = a.base<unsigned char>();
    for (std::size_t i = 0; i < bytesNeeded; ++i)
      if (p[i] > 1) throw UserError(what + ": a bool element is neither 0 nor 1");
  }
  if (*fortran) {
    std::vector<int64_t> perm;
    for (std::size_t i = dims.size(); i-- > 0;) perm.push_back(int64_t(i));
    return a.transposed(perm).contiguous();
  }
  return a;
}

Array loadNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return parseNpy(s.str(), "'" + path + "'");
}

std::string npyBytes(const Array &a) {
  std::string dict = std::string("{'descr': '") + descrOf(a.dtype()) + "', 'fortran_order': False, 'shape': " +
                     shapeText(a.shape()) + ", }";
  std::size_t total = 10 + dict.size() + 1;
  std::size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(dict.size() & 0xff);
  out += char(dict.size() >> 8);
  out += dict;
  Array c = a.contiguous();
  out.append(c.base<char>(), std::size_t(c.size()) * ops::itemSize(c.dtype()));
  return out;
}

void saveNpy(const Array &a, const std::string &path) {
  std::ofstream out(path, std::ios::binary);
  std::string bytes = npyBytes(a);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) throw UserError("cannot write '" + path + "'");
}

} // namespace shapelab::interp
