// The program side of `shapelab._shapelab`: a session of the program language (`_Session`, which
// shapelab.Program and shapelab.trace drive), NumPy arrays in and out of its interpreters, and
// the property harness by shard (`_proptest`, which shapelab.campaign spreads over workers).
//
// NumPy arrays come in without a copy when C-contiguous and aligned (the array is kept alive
// while shapelab reads it), otherwise as one contiguous copy; results go out without a copy
// (the NumPy array owns shapelab's buffer). A result that is a view of an input is read-only.
// Solver and interpreter work runs with the GIL released: one session serves one thread at a
// time, sessions on different threads run at once (each has its own solver).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <pthread.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "interp/Interrupt.h"
#include "lang/Session.h"
#include "ops/Graph.h"
#include "proptests/Differential.h"
#include "proptests/RandomProgram.h"
#include "proptests/Shards.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

namespace py = pybind11;
using namespace shapelab;

namespace {

/// A session with its own solver (an isl context serves one thread).
struct PySession {
  std::unique_ptr<Solver> solver;
  std::unique_ptr<lang::Session> session;
  int lines = 0;

  PySession(bool json, const std::string &mode, uint64_t seed, bool strictLimits) : solver(std::make_unique<Solver>()) {
    lang::SessionOptions o;
    o.json = json;
    o.mode = parseBroadcastMode(mode);
    o.seed = seed;
    o.strictLimits = strictLimits;
    session = std::make_unique<lang::Session>(*solver, o);
  }
};

/// The dtype of a NumPy dtype (by kind and size: no string made), or nullopt.
std::optional<ops::DType> dtypeOf(const py::dtype &d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  using ops::DType;
  switch (kind) {
  case 'b': return DType::Bool;
  case 'i': return size == 1 ? DType::Int8 : size == 2 ? DType::Int16 : size == 4 ? DType::Int32 : size == 8 ? std::optional(DType::Int64) : std::nullopt;
  case 'u': return size == 1 ? DType::UInt8 : size == 2 ? DType::UInt16 : size == 4 ? DType::UInt32 : size == 8 ? std::optional(DType::UInt64) : std::nullopt;
  case 'f': return size == 2 ? DType::Float16 : size == 4 ? DType::Float32 : size == 8 ? std::optional(DType::Float64) : std::nullopt;
  default: return std::nullopt;
  }
}

/// A NumPy array (or anything np.asarray takes) as an interpreter input: no copy when
/// C-contiguous, aligned and in native byte order.
interp::Array arrayOf(const std::string &name, py::handle h) {
  py::array a = py::isinstance<py::array>(h) ? py::reinterpret_borrow<py::array>(h) : py::array::ensure(h);
  if (!a) throw py::type_error("input '" + name + "': not an array (" + std::string(py::str(py::type::handle_of(h).attr("__name__"))) + ")");
  std::optional<ops::DType> t = dtypeOf(a.dtype());
  if (!t) throw py::type_error("input '" + name + "': dtype " + std::string(py::str(a.dtype())) + " is not one shapelab has");
  const int flags = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((a.flags() & flags) != flags || a.dtype().byteorder() == '>') {
    // One contiguous copy in native order (np.ascontiguousarray; the module outlives every call).
    static py::object *contiguous = new py::object(py::module_::import("numpy").attr("ascontiguousarray"));
    a = (*contiguous)(a, py::dtype(ops::spelling(*t)));
  }
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  auto *held = new py::object(a); // released with the GIL held
  return interp::Array::adopt(*t, std::move(shape), const_cast<void *>(a.data()), [held] {
    py::gil_scoped_acquire gil;
    delete held;
  });
}

/// An interpreter result as a NumPy array that owns its buffer (no copy).
py::array numpyOf(interp::Array value, bool readOnly) {
  const std::size_t item = ops::itemSize(value.dtype());
  std::vector<py::ssize_t> shape(value.shape().begin(), value.shape().end()), strides;
  for (int64_t s : value.strides()) strides.push_back(py::ssize_t(s * int64_t(item)));
  const std::string name = ops::spelling(value.dtype());
  py::dtype dt(name);
  const void *data = value.data();
  auto *owner = new interp::Array(std::move(value));
  py::capsule base(owner, [](void *p) { delete static_cast<interp::Array *>(p); });
  py::array out(dt, shape, strides, data, base);
  if (readOnly) py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return out;
}

/// The thread that imported the module (Python's main thread): only there does an evaluation
/// take SIGINT over (a signal handler is the process's).
const pthread_t importingThread = pthread_self();

void onInterrupt(int) { interp::requestInterrupt(); }

/// Ctrl-C (SIGINT, as a notebook's interrupt sends it) during an evaluation on the main thread:
/// the interpreters stop at their next check, and the caller raises KeyboardInterrupt. Python's
/// own handler is back in place once the evaluation returns.
class InterruptScope {
public:
  InterruptScope() : active_(pthread_equal(pthread_self(), importingThread) != 0) {
    if (!active_) return;
    interp::clearInterrupt();
    struct sigaction mine {};
    mine.sa_handler = onInterrupt;
    sigemptyset(&mine.sa_mask);
    active_ = sigaction(SIGINT, &mine, &previous_) == 0;
  }
  ~InterruptScope() { restore(); }
  /// Puts Python's handler back; true when a Ctrl-C came meanwhile.
  bool restore() {
    if (!active_) return false;
    sigaction(SIGINT, &previous_, nullptr);
    active_ = false;
    const bool pending = interp::interruptPending();
    interp::clearInterrupt();
    return pending;
  }
  InterruptScope(const InterruptScope &) = delete;
  InterruptScope &operator=(const InterruptScope &) = delete;

private:
  bool active_;
  struct sigaction previous_ {};
};

/// Evaluation bindings: an input's name takes an array; any other name a size (a Python int).
std::pair<Assignment, std::map<std::string, interp::Array>> bound(PySession &s, py::dict bindings) {
  Assignment point;
  std::map<std::string, interp::Array> arrays;
  for (auto [k, v] : bindings) {
    const std::string key = py::str(k);
    if (s.session->graph().inputNamed(key)) {
      arrays.emplace(key, arrayOf(key, v));
    } else {
      if (!PyLong_Check(v.ptr()) && !PyIndex_Check(v.ptr()))
        throw py::type_error("'" + key + "' is a size, not " + std::string(py::str(py::type::handle_of(v).attr("__name__"))) +
                             " (no input has that name)");
      if (PyBool_Check(v.ptr())) throw py::type_error("'" + key + "' is a size, not a bool");
      point.set(key, Integer::parse(py::str(py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr())))));
    }
  }
  return {std::move(point), std::move(arrays)};
}

} // namespace

void bindPrograms(py::module_ &m) {
  py::class_<PySession>(m, "_Session", "A session of the program language (one thread at a time).")
      .def(py::init<bool, const std::string &, uint64_t, bool>(), py::arg("json") = true, py::arg("mode") = "numpy",
           py::arg("seed") = 0, py::arg("strict_limits") = false)
      .def(
          "execute",
          [](PySession &s, const std::string &line, bool read, int lineNumber) {
            std::pair<bool, std::vector<std::string>> out;
            {
              py::gil_scoped_release release;
              lang::Reply r = s.session->execute(line, lineNumber > 0 ? lineNumber : ++s.lines);
              // A statement's reply costs solver work when read (its shape simplified, its
              // checks): read only when asked, or to say why the line failed.
              out = {r.failed, read || r.failed ? r.lines() : std::vector<std::string>{}};
            }
            return out;
          },
          py::arg("line"), py::arg("read") = true, py::arg("line_number") = 0,
          "Runs one line (numbered line_number, or the next): (failed, the reply's lines; none when not read).")
      .def(
          "array",
          [](PySession &s, const std::string &name) -> py::object {
            const ops::Node *n = s.session->lookup(name);
            if (!n) return py::none();
            py::tuple shape(n->shape.size());
            for (std::size_t i = 0; i < n->shape.size(); ++i) {
              if (auto c = n->shape[i].constantValue(); c && c->tryToInt64()) shape[i] = py::int_(*c->tryToInt64());
              else shape[i] = py::str(n->shape[i].toString());
            }
            return py::make_tuple(shape, py::str(ops::spelling(n->dtype)));
          },
          "The array bound to a name: (shape, dtype), dims as ints or text; None if none.")
      .def(
          "describe", [](PySession &s, const std::string &name) { return s.session->describe(name); },
          "What a name is bound to, as JSON text (empty when unbound).")
      .def(
          "is_input", [](PySession &s, const std::string &name) { return s.session->graph().inputNamed(name) != nullptr; },
          "Whether an input was declared with this name.")
      .def(
          "evaluate",
          [](PySession &s, const std::string &name, py::dict bindings, bool optimized, bool checked) -> py::object {
            auto [point, arrays] = bound(s, bindings);
            std::vector<interp::Array> given; // a result sharing one's buffer is a view of an input
            for (const auto &[k, a] : arrays) given.push_back(a);
            interp::Array value;
            std::string kind, message;
            bool interrupted = false;
            {
              InterruptScope scope;
              {
                py::gil_scoped_release release;
                try {
                  value = s.session->evaluate(name, std::move(point), std::move(arrays), optimized, checked);
                } catch (const ops::EvalError &e) {
                  kind = ops::EvalError::spelling(e.kind);
                  message = e.what();
                } catch (const interp::Interrupted &) {
                  interrupted = true;
                }
              }
              interrupted = scope.restore() || interrupted;
            }
            if (interrupted) {
              PyErr_SetNone(PyExc_KeyboardInterrupt);
              throw py::error_already_set();
            }
            if (!kind.empty()) return py::make_tuple(py::str(kind), py::str(message));
            bool aliased = false;
            for (const interp::Array &a : given) aliased = aliased || value.sharesBuffer(a);
            return numpyOf(std::move(value), aliased);
          },
          py::arg("name"), py::arg("bindings"), py::arg("optimized") = false, py::arg("checked") = false,
          "The value of a name as an ndarray, or (error kind, message) where evaluation fails.")
      .def(
          "time",
          [](PySession &s, const std::string &name, py::dict bindings, bool optimized, bool fusion, bool scalarCode, bool views,
             int64_t block, bool libm, unsigned threads, int repeat, int inner) -> py::object {
            auto [point, arrays] = bound(s, bindings);
            if (repeat < 1 || inner < 1) throw py::value_error("repeat and inner must be at least 1");
            interp::Backend b{optimized, fusion, scalarCode, views, std::max<int64_t>(block, 1), libm, std::max(1u, threads)};
            std::vector<double> figures;
            std::string kind, message;
            {
              py::gil_scoped_release release;
              try {
                figures = s.session->time(name, std::move(point), std::move(arrays), b, repeat, inner);
              } catch (const ops::EvalError &e) {
                kind = ops::EvalError::spelling(e.kind);
                message = e.what();
              }
            }
            if (!kind.empty()) return py::make_tuple(py::str(kind), py::str(message));
            return py::cast(figures);
          },
          py::arg("name"), py::arg("bindings"), py::arg("optimized") = true, py::arg("fusion") = true,
          py::arg("scalar_code") = true, py::arg("views") = true, py::arg("block") = 256, py::arg("libm") = false,
          py::arg("threads") = 1, py::arg("repeat") = 5, py::arg("inner") = 1,
          "Seconds per evaluation of a name on a backend (interp/Timing.h): `repeat` figures, each the mean of "
          "`inner` evaluations on fresh interpreters whose inputs were made first; or (error kind, message).");

  m.def(
      "_parameters",
      [](const std::string &text) {
        std::vector<std::string> names;
        for (const Expr &p : parametersOf(parseExpr(text))) names.push_back(p->name);
        return names;
      },
      "The size parameters an expression reads (a SyntaxError where it is not one).");

  m.def(
      "_proptest",
      [](int64_t cases, uint64_t seed, const std::string &mode, int maxNodes, int64_t shard, int64_t shards, int jobs,
         const std::string &planted) {
        proptests::ShardOptions o;
        o.cases = cases;
        o.seed = seed;
        o.shard = shard;
        o.shards = shards;
        o.jobs = unsigned(std::max(1, jobs));
        o.check.statements = maxNodes;
        o.check.mode = parseBroadcastMode(mode);
        o.check.planted = planted;
        o.perCase = true;
        // One solver per calling thread, kept across shards: a worker's later shards ask it what
        // its earlier ones asked (one process's run keeps one solver too). Never destroyed: at
        // exit its memo's expressions would outlive the tables they are interned in.
        thread_local Solver *solver = nullptr;
        if (jobs <= 1) {
          if (!solver) solver = new Solver();
          o.check.solver = solver;
        }
        proptests::ShardResult r;
        {
          py::gil_scoped_release release;
          r = proptests::runShard(o);
        }
        py::dict d;
        d["cases_run"] = r.casesRun;
        d["failed_at"] = r.failedAt >= 0 ? py::object(py::int_(r.failedAt)) : py::none();
        d["failure"] = r.failure ? py::object(py::str(r.failure->message)) : py::none();
        d["script"] = r.failure ? py::object(py::str(r.failure->script())) : py::none();
        d["indices"] = r.perCase.indices;
        d["evaluations"] = r.perCase.evaluations;
        d["errors_agreed"] = r.perCase.errorsAgreed;
        d["rewritten"] = r.perCase.rewritten;
        d["fired"] = r.perCase.fired;
        return d;
      },
      py::arg("cases"), py::arg("seed"), py::arg("mode") = "numpy", py::arg("max_nodes") = 10, py::arg("shard") = 0,
      py::arg("shards") = 1, py::arg("jobs") = 1, py::arg("planted") = "",
      "One shard of a property run: the cases k < cases with k % shards == shard (seed + k each), in order, up to "
      "the shard's first failure; the counts of each case run.");

  m.def(
      "_random_program",
      [](uint64_t seed, int statements, bool dataDependent, bool gradients, const std::string &mode, bool independentSizes) {
        // The property harness's generator (proptests/RandomProgram.h), as text: data for
        // studies of many programs (the notebooks), generated in the mode given; with
        // `gradients`, a cost and the gradient of each float input appended (as the harness does).
        Solver solver;
        lang::SessionOptions so;
        so.mode = parseBroadcastMode(mode);
        lang::Session session(solver, so);
        std::mt19937_64 rng(seed);
        proptests::ProgramOptions o;
        o.dataDependent = dataDependent;
        o.independentSizes = independentSizes;
        std::vector<std::string> lines = proptests::generateProgram(session, rng, statements, o).lines;
        if (gradients) proptests::appendGradients(session, lines);
        return lines;
      },
      py::arg("seed"), py::arg("statements") = 10, py::arg("data_dependent") = false, py::arg("gradients") = false,
      py::arg("mode") = "numpy", py::arg("independent_sizes") = false,
      "The lines of one random program (the property harness's generator, seeded), built in `mode`; with "
      "gradients=True, a cost and grad_X = grad(cost_, X) for each float input X appended.");
}
