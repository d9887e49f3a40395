// RandomProgram — random programs in the shapelab language, for property tests and benchmarks.
//
// Model: a program declares size parameters n and m, a few inputs of shapes built from n, m, 1
// and small constants, then `count` statements, each one op of the catalogue applied to earlier
// names (elementwise with broadcasting, reductions, reshapes, transposes, slices with symbolic
// bounds, integer indices, masks, concatenation, matmul, diff, cumsum, where, ifelse on sizes).
// Each statement is run in `session` as it is generated, so the generator knows every name's
// rank and dtype; statements the session refuses at build time are dropped (they are not
// programs), statements that are invalid for some or all sizes are kept (they are the point).
// Example: generateProgram(session, rng, 100) returns ~100 lines, all already run in `session`.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace shapelab::lang {
class Session;
}

namespace shapelab::proptests {

struct GeneratedProgram {
  std::vector<std::string> lines;
  std::vector<std::string> names; // assigned array names, in order
};

struct ProgramOptions {
  /// Emit masks (data-dependent sizes) and ifelse.
  bool dataDependent = true;
  /// Emit ops whose validity depends on the sizes (broadcasting unequal parameters).
  bool partialOps = true;
  /// Only elementwise ops, broadcasts, reshapes, slices and reductions (the benchmark's mix).
  bool basicOnly = false;
  /// Also emit the statements practitioners write (one in nine): item assignment (`v[idx] =`,
  /// `v[idx] +=`, `v *= `), np.add.at, several index arrays, list indices, take, and the
  /// functions built from other ops (diagonal, kron, rot90, isclose, nan_to_num, linspace,
  /// round, tensordot, sort, argsort). Off, the stream of programs is the one before they existed (the
  /// benchmarks' workloads).
  bool practitioner = true;
  /// With basicOnly: transposes and expand_dims too (graphs other compilers hand over).
  bool layoutOps = false;
  /// Every input dim its own size parameter (as graphs from other compilers, PyTensor's None,
  /// arrive), instead of every input sharing n and m.
  bool independentSizes = false;
};

GeneratedProgram generateProgram(lang::Session &session, std::mt19937_64 &rng, int count,
                                 ProgramOptions options = {});

} // namespace shapelab::proptests
