// Opcode decoding of wmma / cp.async / mbarrier (see MatrixDecode.h).
#include "ptx/MatrixDecode.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <map>

namespace predatar::ptx {

namespace {

using Parts = std::vector<std::string_view>;

bool has(const Parts& parts, std::string_view p) { return std::find(parts.begin() + 1, parts.end(), p) != parts.end(); }

// Element types of matrix fragments; tf32 travels as B32 (a 32-bit container
// whose low 13 mantissa bits the multiply ignores).
bool matrixType(std::string_view p, Type& t) {
  static const std::map<std::string_view, Type> types = {
      {"f16", Type::F16}, {"bf16", Type::BF16}, {"tf32", Type::B32}, {"f32", Type::F32}, {"f64", Type::F64},
      {"s32", Type::S32}, {"u8", Type::U8},     {"s8", Type::S8}};
  auto it = types.find(p);
  if (it == types.end()) return false;
  t = it->second;
  return true;
}

bool shape(std::string_view p, MatrixOperands& mo) {
  unsigned m = 0, n = 0, k = 0;
  if (std::sscanf(std::string(p).c_str(), "m%un%uk%u", &m, &n, &k) != 3 || m > 64 || n > 64 || k > 64) return false;
  mo.m = uint8_t(m);
  mo.n = uint8_t(n);
  mo.k = uint8_t(k);
  return true;
}

Space space(const Parts& parts) {
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (p == "global") return Space::Global;
    if (p == "shared" || p.substr(0, 8) == "shared::") return Space::Shared;
  }
  return Space::Generic;
}

void semantics(const Parts& parts, Instr& in) {
  in.sem = has(parts, "relaxed") ? Sem::Relaxed : has(parts, "acquire") ? Sem::Acquire : Sem::Release;
  in.scope = has(parts, "cluster") ? Scope::Cluster : has(parts, "gpu") ? Scope::Gpu : Scope::Cta;
}

// wmma.load.{a,b,c} / wmma.store.d / wmma.mma
std::string wmma(const Parts& parts, Instr& in, MatrixOperands& mo, std::string& sig) {
  if (parts.size() < 2) return "unsupported";
  std::vector<Type> types;
  bool shaped = false, satfinite = false;
  int layouts = 0;
  for (size_t i = 2; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    Type t;
    if (p == "row" || p == "col") {
      (layouts++ == 0 ? mo.rowA : mo.rowB) = p == "row";
    } else if (p[0] == 'm' && p.find('n') != std::string_view::npos && shape(p, mo)) {
      shaped = true;
    } else if (matrixType(p, t)) {
      types.push_back(t);
    } else if (p == "satfinite") {
      satfinite = true;
    } else if (p == "s4" || p == "u4" || p == "b1" || p == "e4m3" || p == "e5m2") {
      return "unsupported";  // sub-byte and fp8 fragments
    } else if (!(p == "a" || p == "b" || p == "c" || p == "d" || p == "sync" || p == "aligned" || p == "global" ||
                 p == "shared" || p.substr(0, 8) == "shared::" || p == "rn" || p == "ss")) {
      return "unsupported";
    }
  }
  if (!shaped) return "missing shape";
  in.space = space(parts);
  in.sat = satfinite;
  if (parts[1] == "load" || parts[1] == "store") {
    bool load = parts[1] == "load";
    char frag = parts.size() > 2 && parts[2].size() == 1 ? parts[2][0] : 0;
    if (load ? (frag != 'a' && frag != 'b' && frag != 'c') : frag != 'd') return "missing fragment (.a/.b/.c/.d)";
    if (layouts != 1 || types.size() != 1) return "expected one layout and one type";
    mo.fragment = frag;
    mo.aType = types[0];
    in.op = load ? Op::WmmaLoad : Op::WmmaStore;
    sig = load ? "DM?s" : "MC?s";
    return "";
  }
  if (parts[1] != "mma") return "unsupported";
  if (layouts != 2) return "expected two layouts";
  if (types.size() == 2) {  // .dtype.ctype with f16 multiplicands
    mo.dType = types[0];
    mo.cType = types[1];
    mo.aType = mo.bType = Type::F16;
  } else if (types.size() == 4) {
    mo.dType = types[0];
    mo.aType = types[1];
    mo.bType = types[2];
    mo.cType = types[3];
  } else {
    return "expected the types .dtype.ctype or .dtype.atype.btype.ctype";
  }
  in.op = Op::WmmaMma;
  sig = "DABC";
  return "";
}

// mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype with the
// PTX ISA's fragment layouts (mo.fragment = 'm'): m16n8k8/k16 f16 and bf16,
// m16n8k4/k8 tf32, m16n8k16/k32 s8/u8, m8n8k4 f64.
std::string mmaSync(const Parts& parts, Instr& in, MatrixOperands& mo, std::string& sig) {
  Parts wparts = {"wmma", "mma"};  // the shape, layouts and types are wmma.mma's
  for (size_t i = 1; i < parts.size(); ++i) wparts.push_back(parts[i]);
  std::string why = wmma(wparts, in, mo, sig);
  if (!why.empty()) return why;
  if (!mo.rowA || mo.rowB) return "unsupported";  // only .row.col
  std::string shape = "m" + std::to_string(mo.m) + "n" + std::to_string(mo.n) + "k" + std::to_string(mo.k);
  Type a = mo.aType;
  bool ok = (a == Type::F16 || a == Type::BF16) ? (shape == "m16n8k8" || shape == "m16n8k16")
            : a == Type::B32                    ? (shape == "m16n8k4" || shape == "m16n8k8")
            : (a == Type::S8 || a == Type::U8)  ? (shape == "m16n8k16" || shape == "m16n8k32")
            : a == Type::F64                    ? shape == "m8n8k4"
                                                : false;
  if (!ok) return "unsupported";
  mo.fragment = 'm';
  return "";
}

// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: a WmmaLoad with
// mo.fragment = 'l' (mo.rowB: .trans).
std::string ldmatrix(const Parts& parts, Instr& in, MatrixOperands& mo, std::string& sig) {
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (!(p == "sync" || p == "aligned" || p == "m8n8" || p == "x1" || p == "x2" || p == "x4" || p == "trans" ||
          p == "shared" || p == "shared::cta" || p == "b16"))
      return "unsupported";
  }
  in.op = Op::WmmaLoad;
  in.space = space(parts);
  mo.fragment = 'l';
  mo.rowB = has(parts, "trans");
  sig = "DM";
  return "";
}

// cp.async.{ca,cg}.shared.global / commit_group / wait_group / wait_all / mbarrier.arrive
std::string cpAsync(const Parts& parts, Instr& in, MatrixOperands& mo, std::string& sig) {
  if (parts.size() < 2 || parts[1] != "async") return "unsupported";
  if (parts.size() < 3) return "unsupported";
  std::string_view what = parts[2];
  if (what == "commit_group") { in.op = Op::CpAsyncCommit; sig = ""; return ""; }
  if (what == "wait_group") { in.op = Op::CpAsyncWait; sig = "s"; return ""; }
  if (what == "wait_all") { in.op = Op::CpAsyncWait; in.mode = 1; sig = ""; return ""; }
  if (what == "mbarrier") {
    if (parts.size() < 4 || parts[3] != "arrive") return "unsupported";
    in.op = Op::CpAsyncMbarrierArrive;
    in.mode = has(parts, "noinc") ? 1 : 0;
    in.space = space(parts);
    semantics(parts, in);
    sig = "M";
    return "";
  }
  if (what != "ca" && what != "cg") return "unsupported";  // cp.async.bulk and the tensor forms
  for (size_t i = 3; i < parts.size(); ++i)
    if (!(parts[i] == "shared" || parts[i] == "global" || parts[i].find("::") != std::string_view::npos))
      return "unsupported";
  if (!has(parts, "global") || space(parts) != Space::Shared) return "cp.async needs .shared and .global";
  in.op = Op::CpAsync;
  in.space = Space::Shared;
  // mode: 1 = the last operand is a cache policy (.L2::cache_hint), 2 = .cg
  in.mode = uint8_t((has(parts, "L2::cache_hint") ? 1 : 0) | (what == "cg" ? 2 : 0));
  mo.source.base = Address::Base::Ref;
  sig = "MNs?ss";
  return "";
}

// mbarrier.{init,arrive,arrive_drop,expect_tx,complete_tx,test_wait,try_wait,inval,pending_count}
std::string mbarrier(const Parts& parts, Instr& in, std::string& sig) {
  if (parts.size() < 2) return "unsupported";
  std::string_view what = parts[1];
  in.space = space(parts);
  semantics(parts, in);
  if (has(parts, "noComplete")) return "unsupported";
  if (what == "init") { in.op = Op::MbarrierInit; sig = "Ms"; return ""; }
  if (what == "inval") { in.op = Op::MbarrierInval; sig = "M"; return ""; }
  if (what == "pending_count") { in.op = Op::MbarrierPendingCount; sig = "ds"; return ""; }
  if (what == "expect_tx" || what == "complete_tx") {
    in.op = Op::MbarrierTx;
    in.mode = what == "complete_tx" ? 1 : 0;
    sig = "Ms";
    return "";
  }
  if (what == "arrive" || what == "arrive_drop") {
    in.op = Op::MbarrierArrive;
    in.mode = uint8_t((what == "arrive_drop" ? 1 : 0) | (has(parts, "expect_tx") ? 2 : 0));
    sig = "dM?s";
    return "";
  }
  if (what == "test_wait" || what == "try_wait") {
    in.op = Op::MbarrierTestWait;
    in.mode = uint8_t((has(parts, "parity") ? 1 : 0) | (what == "try_wait" ? 2 : 0));
    if (in.sem == Sem::Release) in.sem = Sem::Acquire;  // waits default to .acquire
    sig = "dMs?s";
    return "";
  }
  return "unsupported";
}

}  // namespace

bool isMatrixFamily(std::string_view base) {
  return base == "wmma" || base == "mma" || base == "ldmatrix" || base == "cp" || base == "mbarrier";
}

std::string decodeMatrixOpcode(const Parts& parts, Instr& in, MatrixOperands& mo, std::string& signature) {
  std::string_view base = parts[0];
  if (base == "wmma") return wmma(parts, in, mo, signature);
  if (base == "cvt") {  // cvt.{rna,rn,rz}{.satfinite}.tf32.f32 d, a
    in.op = Op::CvtTf32;
    in.round = has(parts, "rna") ? Round::Rna : has(parts, "rz") ? Round::Rz : has(parts, "rn") ? Round::Rn : Round::None;
    if (in.round == Round::None || !has(parts, "f32") || has(parts, "relu")) return "unsupported";
    signature = "ds";
    return "";
  }
  if (base == "mma") return mmaSync(parts, in, mo, signature);
  if (base == "ldmatrix") return ldmatrix(parts, in, mo, signature);
  if (base == "cp") return cpAsync(parts, in, mo, signature);
  if (base == "mbarrier") return mbarrier(parts, in, signature);
  return "unsupported";
}

}  // namespace predatar::ptx
