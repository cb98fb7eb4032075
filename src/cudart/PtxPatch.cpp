#include "cudart/PtxPatch.h"

#include <algorithm>

namespace predatar::cudart {
namespace {

// The body replacing the declaration's `;`.
const char* fallbackBody(std::string_view name) {
  if (name == "vprintf")
    return "{\n\t.reg .b32 %predatar_r;\n\tmov.b32 %predatar_r, 0;\n\tst.param.b32 [func_retval0], %predatar_r;\n"
           "\tret;\n}\n";
  if (name == "__assertfail") return "{\n\ttrap;\n\tret;\n}\n";
  return nullptr;
}

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

}  // namespace

PtxPatch defineMissingFunctions(std::string_view ptx, const std::vector<std::string>& names) {
  PtxPatch out{std::string(ptx), {}};
  for (const std::string& name : names) {
    const char* body = fallbackBody(name);
    if (!body) continue;
    size_t pos = 0;
    while ((pos = out.ptx.find(".extern", pos)) != std::string::npos) {
      // The declaration runs to the first ';' at parenthesis depth 0.
      size_t end = pos;
      int depth = 0;
      for (; end < out.ptx.size(); ++end) {
        char c = out.ptx[end];
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ';' && depth == 0) break;
      }
      if (end >= out.ptx.size()) break;
      std::string_view decl(out.ptx.data() + pos, end - pos);
      bool isFunc = decl.find(".func") != std::string_view::npos;
      size_t at = decl.find(name);
      bool named = false;
      while (at != std::string_view::npos) {
        bool startOk = at == 0 || !isIdentChar(decl[at - 1]);
        bool endOk = at + name.size() >= decl.size() || !isIdentChar(decl[at + name.size()]);
        // The function name, not a parameter named name_param_0.
        if (startOk && endOk) {
          named = true;
          break;
        }
        at = decl.find(name, at + 1);
      }
      if (!isFunc || !named) {
        pos = end + 1;
        continue;
      }
      std::string definition(decl.substr(std::string_view(".extern").size()));
      while (!definition.empty() && (definition.front() == ' ' || definition.front() == '\t'))
        definition.erase(definition.begin());
      definition += "\n";
      definition += body;
      out.ptx.replace(pos, end + 1 - pos, definition);
      if (std::find(out.replaced.begin(), out.replaced.end(), name) == out.replaced.end())
        out.replaced.push_back(name);
      pos += definition.size();
    }
  }
  return out;
}

}  // namespace predatar::cudart
