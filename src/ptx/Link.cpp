#include "ptx/Link.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "ptx/Ir.h"
#include "ptx/Lexer.h"

namespace predatar::ptx {
namespace {

using detail::Tok;
using detail::Token;

enum class Linkage { None, Visible, Extern, Weak, Common };
enum class ItemKind { Header, File, Section, Pragma, Variable, FunctionDecl, FunctionDef };

// One top-level statement of a unit, as tokens [first, last].
struct Item {
  ItemKind kind = ItemKind::Header;
  Linkage linkage = Linkage::None;
  std::string name;     // variables and functions (before renaming)
  size_t first = 0, last = 0;
  size_t declStart = 0;  // functions: the .entry/.func token (after the linkage keywords)
  size_t bodyStart = 0;  // FunctionDef: the '{' of the body
};

struct Unit {
  const PtxUnit* source = nullptr;
  std::vector<Token> tokens;
  std::vector<Item> items;
  std::set<std::string> internal;  // names without linkage: static symbols, $str, debug labels
  std::map<std::string, std::string> renames;
  uint32_t fileOffset = 0, maxFile = 0;
};

bool isPunct(const Token& t, char c) { return t.kind == Tok::Punct && t.text[0] == c; }
bool isDirective(const Token& t) { return t.kind == Tok::Ident && !t.text.empty() && t.text[0] == '.'; }

class Splitter {
 public:
  explicit Splitter(Unit& u) : u_(u), t_(u.tokens) {}

  absl::Status run() {
    for (size_t i = 0; t_[i].kind != Tok::End;) {
      auto next = item(i);
      if (!next.ok()) return next.status();
      i = *next;
    }
    return absl::OkStatus();
  }

 private:
  absl::Status error(size_t i, std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(u_.source->name, ":", t_[i].line, ": cannot link this PTX unit: ", std::string(what)));
  }
  // Past the bracketed group opening at i.
  size_t skipGroup(size_t i) const {
    int depth = 0;
    do {
      if (isPunct(t_[i], '(') || isPunct(t_[i], '[') || isPunct(t_[i], '{')) ++depth;
      if (isPunct(t_[i], ')') || isPunct(t_[i], ']') || isPunct(t_[i], '}')) --depth;
      ++i;
    } while (depth > 0 && t_[i].kind != Tok::End);
    return i;
  }
  // A statement without ';': its operands up to the next directive (`.target sm_90, debug`).
  size_t skipOperands(size_t i) const {
    ++i;
    while (t_[i].kind != Tok::End && !(isDirective(t_[i]) && !isPunct(t_[i - 1], ','))) ++i;
    return i;
  }

  absl::StatusOr<size_t> item(size_t i) {
    if (!isDirective(t_[i])) return error(i, absl::StrCat("unexpected '", std::string(t_[i].text), "' at the top level"));
    std::string_view d = t_[i].text;
    Item it;
    it.first = i;
    if (d == ".version" || d == ".target" || d == ".address_size" || d == ".file") {
      it.kind = d == ".file" ? ItemKind::File : ItemKind::Header;
      size_t end = skipOperands(i);
      if (it.kind == ItemKind::File && t_[i + 1].kind == Tok::Int)
        u_.maxFile = std::max<uint32_t>(u_.maxFile, uint32_t(t_[i + 1].bits));
      return push(it, end);
    }
    if (d == ".section") {
      size_t j = i;
      while (t_[j].kind != Tok::End && !isPunct(t_[j], '{')) ++j;
      size_t end = skipGroup(j);
      for (size_t k = j; k + 1 < end; ++k)  // labels of debug strings
        if (t_[k].kind == Tok::Ident && isPunct(t_[k + 1], ':')) u_.internal.insert(std::string(t_[k].text));
      it.kind = ItemKind::Section;
      return push(it, end);
    }
    if (d == ".pragma") {
      size_t j = i;
      while (t_[j].kind != Tok::End && !isPunct(t_[j], ';')) ++j;
      it.kind = ItemKind::Pragma;
      return push(it, j + 1);
    }
    size_t j = i;
    for (; isDirective(t_[j]); ++j) {
      std::string_view k = t_[j].text;
      if (k == ".visible") it.linkage = Linkage::Visible;
      else if (k == ".extern") it.linkage = Linkage::Extern;
      else if (k == ".weak") it.linkage = Linkage::Weak;
      else if (k == ".common") it.linkage = Linkage::Common;
      else break;
    }
    return t_[j].text == ".entry" || t_[j].text == ".func" ? function(it, j) : variable(it, j);
  }

  absl::StatusOr<size_t> function(Item& it, size_t j) {
    it.declStart = j++;
    if (isPunct(t_[j], '(')) j = skipGroup(j);  // return parameters
    if (t_[j].kind != Tok::Ident) return error(j, "expected a function name");
    it.name = std::string(t_[j].text);
    for (++j; t_[j].kind != Tok::End; ++j) {
      if (isPunct(t_[j], '(') || isPunct(t_[j], '[')) j = skipGroup(j) - 1;
      else if (isPunct(t_[j], ';')) break;
      else if (isPunct(t_[j], '{')) {
        it.kind = ItemKind::FunctionDef;
        it.bodyStart = j;
        return push(it, skipGroup(j));
      }
    }
    if (t_[j].kind == Tok::End) return error(it.first, "unterminated function declaration");
    it.kind = ItemKind::FunctionDecl;
    return push(it, j + 1);
  }

  absl::StatusOr<size_t> variable(Item& it, size_t j) {
    it.kind = ItemKind::Variable;
    it.declStart = j;
    for (; t_[j].kind != Tok::End && !isPunct(t_[j], ';'); ++j) {
      if (it.name.empty() && t_[j].kind == Tok::Ident && !isDirective(t_[j]) &&
          (isPunct(t_[j + 1], '[') || isPunct(t_[j + 1], '=') || isPunct(t_[j + 1], ';') || isPunct(t_[j + 1], '<')))
        it.name = std::string(t_[j].text);
      if (isPunct(t_[j], '{') || isPunct(t_[j], '[')) j = skipGroup(j) - 1;
    }
    if (t_[j].kind == Tok::End || it.name.empty()) return error(it.first, "expected a variable declaration");
    return push(it, j + 1);
  }

  size_t push(Item& it, size_t end) {
    it.last = end - 1;
    if (it.linkage == Linkage::None && !it.name.empty()) u_.internal.insert(it.name);
    u_.items.push_back(std::move(it));
    return end;
  }

  Unit& u_;
  const std::vector<Token>& t_;
};

size_t beginOf(const Unit& u, const Token& t) {
  return size_t(t.text.data() - u.source->text.data()) - (t.kind == Tok::String ? 1 : 0);
}
size_t endOf(const Unit& u, const Token& t) {
  return size_t(t.text.data() - u.source->text.data()) + t.text.size() + (t.kind == Tok::String ? 1 : 0);
}

// The text of tokens [first, last] of u, renamed and with file indices moved.
std::string rewrite(const Unit& u, size_t first, size_t last) {
  std::string out;
  size_t copied = beginOf(u, u.tokens[first]);
  for (size_t i = first; i <= last; ++i) {
    const Token& t = u.tokens[i];
    std::string replacement;
    if (t.kind == Tok::Ident) {
      if (auto r = u.renames.find(std::string(t.text)); r != u.renames.end()) replacement = r->second;
    } else if (t.kind == Tok::Int && u.fileOffset > 0 && i > 0 && u.tokens[i - 1].kind == Tok::Ident) {
      std::string_view before = u.tokens[i - 1].text;
      if (before == ".loc" || before == ".file" || before == "inlined_at")
        replacement = std::to_string(t.bits + u.fileOffset);
    }
    if (replacement.empty()) continue;
    out.append(u.source->text.substr(copied, beginOf(u, t) - copied));
    out.append(replacement);
    copied = endOf(u, t);
  }
  out.append(u.source->text.substr(copied, endOf(u, u.tokens[last]) - copied));
  return out;
}

std::string nameAfterRenames(const Unit& u, const std::string& name) {
  auto r = u.renames.find(name);
  return r == u.renames.end() ? name : r->second;
}

// Names without linkage that another unit also uses get a unit suffix.
void renameClashes(std::vector<Unit>& units) {
  std::map<std::string, std::vector<size_t>> internalIn;
  std::set<std::string> withLinkage;
  for (size_t k = 0; k < units.size(); ++k) {
    for (const std::string& n : units[k].internal) internalIn[n].push_back(k);
    for (const Item& it : units[k].items)
      if (!it.name.empty() && it.linkage != Linkage::None) withLinkage.insert(it.name);
  }
  for (const auto& [name, in] : internalIn) {
    bool shared = withLinkage.count(name) > 0;
    for (size_t i = 0; i < in.size(); ++i)
      if (shared || i > 0) units[in[i]].renames[name] = absl::StrCat(name, "$u", in[i]);
  }
}

struct Emitter {
  std::string headerVersion, target, files, variables, prototypes, definitions, rest;
};

absl::Status emitUnits(const std::vector<Unit>& units, Emitter& out) {
  // Which unit defines each function and variable: the strong definition,
  // else the first of the weak or common ones.
  std::map<std::string, std::pair<size_t, const Item*>> defined;
  auto strong = [](const Item& it) { return it.linkage != Linkage::Weak && it.linkage != Linkage::Common; };
  for (size_t k = 0; k < units.size(); ++k)
    for (const Item& it : units[k].items) {
      bool definition = it.kind == ItemKind::FunctionDef || (it.kind == ItemKind::Variable && it.linkage != Linkage::Extern);
      if (!definition) continue;
      std::string name = nameAfterRenames(units[k], it.name);
      auto [pos, inserted] = defined.try_emplace(name, k, &it);
      if (inserted || !strong(it)) continue;
      if (strong(*pos->second.second))
        return absl::InvalidArgumentError(absl::StrCat("multiple definition of '", name, "' in the PTX units ",
                                                       units[pos->second.first].source->name, " and ",
                                                       units[k].source->name));
      pos->second = {k, &it};  // a strong definition overrides weak ones
    }
  std::set<std::string> declared;
  for (size_t k = 0; k < units.size(); ++k) {
    const Unit& u = units[k];
    for (const Item& it : u.items) {
      std::string name = nameAfterRenames(u, it.name);
      auto def = defined.find(name);
      bool kept = def != defined.end() && def->second.second == &it;
      switch (it.kind) {
        case ItemKind::Header: {
          std::string_view d = u.tokens[it.first].text;
          if (d == ".version") {
            std::string v(u.tokens[it.first + 1].text);
            if (out.headerVersion.empty() || std::strtod(v.c_str(), nullptr) > std::strtod(out.headerVersion.c_str(), nullptr))
              out.headerVersion = v;
          } else if (d == ".target" && out.target.empty()) {
            out.target = rewrite(u, it.first, it.last);
          }
          break;
        }
        case ItemKind::File: absl::StrAppend(&out.files, rewrite(u, it.first, it.last), "\n"); break;
        case ItemKind::Section: case ItemKind::Pragma:
          absl::StrAppend(&out.rest, rewrite(u, it.first, it.last), "\n");
          break;
        case ItemKind::Variable:
          if (kept || (def == defined.end() && declared.insert(name).second))
            absl::StrAppend(&out.variables, rewrite(u, it.first, it.last), "\n");
          break;
        case ItemKind::FunctionDecl:
          if (def == defined.end() && declared.insert(name).second)
            absl::StrAppend(&out.prototypes, rewrite(u, it.first, it.last), "\n");
          break;
        case ItemKind::FunctionDef:
          if (!kept) break;
          // The prototype: the header without linkage (an .extern would mark it external).
          absl::StrAppend(&out.prototypes, rewrite(u, it.declStart, it.bodyStart - 1), ";\n");
          absl::StrAppend(&out.definitions, rewrite(u, it.first, it.last), "\n\n");
          break;
      }
    }
  }
  return absl::OkStatus();
}

// The device runtime library's own PTX (-lcudadevrt) defines what the
// emulator provides as built-ins (__cudaCDP2*, cudaGetLastError, ...) over
// driver entry points no PTX defines: the built-ins stand for the unit.
bool isDeviceRuntime(const Unit& u) {
  return std::any_of(u.items.begin(), u.items.end(), [](const Item& it) {
    return it.kind == ItemKind::FunctionDef && builtinFor(it.name) != kNotBuiltin;
  });
}

}  // namespace

absl::StatusOr<std::string> linkUnits(const std::vector<PtxUnit>& sources) {
  if (sources.size() == 1) return std::string(sources[0].text);
  std::vector<Unit> units;
  uint32_t fileOffset = 0;
  for (const PtxUnit& source : sources) {
    Unit u;
    u.source = &source;
    if (auto st = detail::lex(source.text, source.name, u.tokens); !st.ok()) return st;
    if (auto st = Splitter(u).run(); !st.ok()) return st;
    if (isDeviceRuntime(u)) continue;
    u.fileOffset = fileOffset;
    fileOffset += u.maxFile;
    units.push_back(std::move(u));
  }
  if (units.size() == 1) return std::string(units[0].source->text);
  renameClashes(units);
  Emitter out;
  if (auto st = emitUnits(units, out); !st.ok()) return st;
  std::string names;
  for (const Unit& u : units) absl::StrAppend(&names, names.empty() ? "" : ", ", u.source->name);
  return absl::StrCat("// linked by PreDataR from ", units.size(), " PTX units: ", names, "\n.version ",
                      out.headerVersion.empty() ? "9.0" : out.headerVersion, "\n",
                      out.target.empty() ? ".target sm_75" : out.target, "\n.address_size 64\n\n", out.files, "\n",
                      out.variables, "\n", out.prototypes, "\n", out.definitions, out.rest);
}

}  // namespace predatar::ptx
