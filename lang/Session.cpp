// The session's public face (Session.h): Session, Reply and runScript.
#include "lang/SessionImpl.h"

namespace shapelab::lang {

auto Session::Impl::nameOf(const Node *n) const -> const std::string * {
  return n->id < names.size() && !names[n->id].empty() ? &names[n->id] : nullptr;
}

auto Session::Impl::reset() -> void {
  variables.clear();
  names.clear();
  optimized.clear();
  paramsRead.clear();
  transcript.clear();
  statements.clear();
  statementOrigins.clear();
  arrayStatusMemo.clear(); // before the graph: its keys hold the graph's pending lists
  unkeptStatus.reset();
  graph.reset();
  graph = std::make_unique<ops::Graph>(solver);
  mode = options.mode;
}

Session::Session(Solver &solver, SessionOptions options) : impl_(std::make_unique<Impl>(solver, std::move(options))) {}
Session::~Session() = default;
namespace {
/// A line read as Python reads it: where `;` separates statements (outside strings, brackets and
/// a comment), how many brackets stay open at its end, and whether it ends with `\`.
struct LineScan {
  std::vector<std::size_t> cuts;
  int depth = 0;
  bool backslash = false;
};

LineScan scanLine(const std::string &line) {
  LineScan s;
  char quote = 0;
  std::size_t last = std::string::npos; // the last character outside strings and the comment
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') break;
    if (!std::isspace(static_cast<unsigned char>(c))) last = i;
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++s.depth;
    else if (c == ')' || c == ']' || c == '}') --s.depth;
    else if (c == ';' && s.depth == 0) s.cuts.push_back(i);
  }
  s.backslash = !quote && last != std::string::npos && line[last] == '\\';
  return s;
}
} // namespace

std::string notText(const std::string &text) {
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == 0) return "it holds a NUL byte at byte " + std::to_string(i + 1) + " (a binary file?)";
    const std::size_t length = utf8SequenceLength(text, i);
    if (length == 0) return "it is not UTF-8 text (byte " + std::to_string(i + 1) + ")";
    i += length;
  }
  return "";
}

std::string readStatement(std::string text, const std::function<std::optional<std::string>()> &next) {
  // Bounded: a bracket never closed ends the statement at 1,000 lines, which then reports it.
  // Binary bytes (a pasted file) open no bracket: the line is reported by itself.
  if (!notText(text).empty()) return text;
  for (int more = 0; more < 1000; ++more) {
    const LineScan s = scanLine(text);
    if (s.depth <= 0 && !s.backslash) break;
    std::optional<std::string> line = next();
    if (!line) break;
    if (s.backslash) text.erase(text.find_last_of('\\'));
    text += " " + *line;
  }
  return text;
}

Reply Session::execute(const std::string &line, int lineNumber) { return impl_->executeLine(line, lineNumber); }

auto Session::Impl::executeLine(const std::string &line, int lineNumber) -> Reply {
  // A statement that ran joins the transcript (:save-session); commands do not.
  auto recorded = [this](const std::string &text, Reply r) {
    const std::size_t a = text.find_first_not_of(' '), b = text.find_last_not_of(' ');
    if (!r.failed && a != std::string::npos && text[a] != ':' && text[a] != '#') transcript.push_back(text.substr(a, b - a + 1));
    return r;
  };
  std::vector<std::size_t> cuts = scanLine(line).cuts;
  if (cuts.empty()) return recorded(line, execute(line, lineNumber));
  // Each statement runs on the line with the others blanked, so that its columns are the line's.
  Reply all;
  cuts.push_back(line.size());
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    std::string masked(line.size(), ' ');
    masked.replace(from, cut - from, line, from, cut - from);
    from = cut + 1;
    if (masked.find_first_not_of(' ') == std::string::npos) continue;
    all.append(recorded(masked, execute(masked, lineNumber)));
    if (all.quit) break;
  }
  return all;
}
std::size_t Session::nodeCount() const { return impl_->graph->nodes().size(); }
const ops::Graph &Session::graph() const { return *impl_->graph; }
ops::Graph &Session::mutableGraph() { return *impl_->graph; }
const ops::Node *Session::lookup(const std::string &name) const { return impl_->arrayNamed(name); }

auto Session::Impl::arrayNamed(const std::string &name) const -> const Node * {
  const Value *v = variables.find(name);
  return v && v->kind == Value::Array ? v->node : nullptr;
}

namespace {
Json describeValue(const Value &v) {
  Json j;
  switch (v.kind) {
  case Value::Array:
    j["kind"] = "array";
    j["shape"] = shapeJson(v.node->shape);
    j["dtype"] = ops::spelling(v.node->dtype);
    break;
  case Value::Size:
  case Value::Predicate:
    j["kind"] = v.kind == Value::Size ? "size" : "predicate";
    j["value"] = valueText(v);
    break;
  case Value::Float:
    j["kind"] = "float";
    j["value"] = v.number;
    break;
  case Value::Bool:
    j["kind"] = "bool";
    j["value"] = v.flag;
    break;
  case Value::Tuple: {
    j["kind"] = "tuple";
    Json items = Json::array();
    for (const Value &i : v.items) items.push_back(describeValue(i));
    j["items"] = items;
    break;
  }
  case Value::DTypeName:
    j["kind"] = "dtype";
    j["value"] = ops::spelling(v.dtype);
    break;
  case Value::String:
    j["kind"] = "string";
    j["value"] = v.text;
    break;
  case Value::None: j["kind"] = "none"; break;
  default: j["kind"] = kindName(v); break;
  }
  return j;
}
} // namespace

std::string Session::describe(const std::string &name) const {
  const Value *v = impl_->variables.find(name);
  return v ? dumpJson(describeValue(*v)) : std::string();
}

const std::vector<std::string> &Reply::lines() const {
  if (!lines_) {
    std::vector<std::string> out;
    for (const Piece &p : pieces_) {
      if (p.make) p.make(out);
      else out.push_back(p.line);
    }
    lines_ = std::move(out);
  }
  return *lines_;
}

void Reply::add(std::string line) {
  pieces_.push_back({std::move(line), {}});
  lines_.reset();
}

void Reply::addLater(std::function<void(std::vector<std::string> &)> make) {
  pieces_.push_back({{}, std::move(make)});
  lines_.reset();
}

void Reply::append(Reply &&other) {
  failed = failed || other.failed;
  quit = quit || other.quit;
  for (Piece &p : other.pieces_) pieces_.push_back(std::move(p));
  lines_.reset();
}

void Reply::set(std::vector<std::string> lines) {
  pieces_.clear();
  for (std::string &l : lines) add(std::move(l));
}

/// A script stops after this many failed lines.
constexpr int kMaxReportedErrors = 100;

int runScript(Solver &solver, const std::string &text, SessionOptions options, std::ostream &out, const std::string &fileName) {
  Session session(solver, options);
  std::istringstream in(text);
  std::string line;
  int number = 0, failures = 0;
  while (std::getline(in, line)) {
    ++number;
    Reply r = session.execute(line, number);
    for (const std::string &l : r.lines()) {
      if (r.failed && !options.json) out << fileName << ":" << number << ": ";
      out << l << "\n";
    }
    if (r.failed && ++failures == kMaxReportedErrors) {
      // Past this many errors the rest is counted, not run: a file that is not a program
      // would otherwise print an error for every line.
      int more = 0;
      while (std::getline(in, line)) ++more;
      if (more > 0) {
        if (options.json) out << "{\"error\": \"stopped after " << kMaxReportedErrors << " errors\", \"lines_not_run\": " << more << "}\n";
        else out << fileName << ": stopped after " << kMaxReportedErrors << " errors, and " << more << " more lines not run\n";
      }
      break;
    }
    if (r.quit) break;
  }
  return failures;
}


} // namespace shapelab::lang
