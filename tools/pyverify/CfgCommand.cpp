//===- CfgCommand.cpp - pyverify cfg --------------------------------------===//
//
// pyverify cfg [--dot] [--function=QUALNAME] FILE...
//
// Basic blocks and edges of every code object (or of those whose qualname,
// or "[target] qualname" in a bundle, is --function's; none matching is a
// usage error that lists the nearest names), with the findings of the
// default checks placed on the instructions they are about. --dot writes
// Graphviz, one digraph for the whole run, so that `dot` draws everything:
// one code object is the digraph itself; several are each a cluster
// subgraph of one digraph, their nodes prefixed "cK_" (the K-th code
// object, from 0). In each graph the entry block and the handlers
// are marked, each row shows the source line where it changes, exception
// edges are dashed and red, unreachable blocks gray, blocks with an error
// red (warnings orange, remarks blue) with the check ids on the rows and the
// messages as the node's tooltip. Arguments longer than 40 characters are
// cut with an ellipsis.
//
// A code object that is not well-formed has no CFG; it gets a partial graph
// instead: its instructions in blocks split after jumps, terminators and
// undecodable instructions and at valid jump and handler targets, with only
// the edges the code can be trusted for (fall-through after a decoded
// instruction that may fall through, jumps to valid targets; no exception
// edges), and a note saying so. A bundle's code objects are named with their
// target: "CFG of [resume:0] f".
//
//===----------------------------------------------------------------------===//

#include "CodeInputs.h"
#include "Commands.h"

#include "pyverify/Analysis/CodeAnalysis.h"
#include "pyverify/Bytecode/Listing.h"
#include "pyverify/CFG/CFG.h"
#include "pyverify/Check/StackChecks.h"
#include "pyverify/Check/Verifier.h"
#include "pyverify/Support/JSONWriter.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

using namespace pyverify;
using namespace llvm;

namespace pyverify::tool {

cl::SubCommand CfgCmd("cfg", "Print the control-flow graph");

namespace {

cl::list<std::string> CfgInputs(cl::Positional, cl::ZeroOrMore,
                                cl::desc("<file>..."), cl::sub(CfgCmd));
cl::opt<bool> Dot("dot",
                  cl::desc("Write Graphviz (one digraph; several code "
                           "objects are its clusters)"),
                  cl::sub(CfgCmd));
cl::opt<std::string>
    Function("function",
             cl::desc("Only code objects with this qualname (e.g. C.f, "
                      "f.<locals>.g; in a bundle also '[resume:0] f')"),
             cl::value_desc("qualname"), cl::sub(CfgCmd));

/// Arguments longer than this are cut, with an ellipsis, in --dot rows.
constexpr size_t MaxArgumentChars = 40;

struct ViewBlock {
  uint32_t Begin, End; ///< Instruction indices.
  bool Reachable;
  llvm::SmallVector<unsigned, 2> Succs; ///< Indices into GraphView::Edges.
};

/// What is drawn: the CFG's blocks and edges, or a partial graph of code
/// that is not well-formed. Edges reuse CFGEdge (exception edges only from
/// a CFG).
struct GraphView {
  const DecodedCode *D = nullptr;
  std::vector<ViewBlock> Blocks;
  std::vector<CFGEdge> Edges;
  bool Partial = false;

  unsigned blockOfStart(uint32_t Inst) const {
    for (const ViewBlock &B : Blocks)
      if (B.Begin <= Inst && Inst < B.End)
        return unsigned(&B - Blocks.data());
    llvm_unreachable("blocks tile the instructions");
  }
};

GraphView viewOf(const CFG &G) {
  GraphView V;
  V.D = &G.code();
  V.Edges.assign(G.edges().begin(), G.edges().end());
  for (const BasicBlock &B : G.blocks())
    V.Blocks.push_back(
        {B.Begin, B.End, G.reachable().test(B.Id),
         llvm::SmallVector<unsigned, 2>(B.Succs.begin(), B.Succs.end())});
  return V;
}

/// The blocks of code that is not well-formed (see the file comment).
llvm::BitVector partialLeaders(const DecodedCode &D) {
  size_t N = D.Insts.size();
  llvm::BitVector Leader(N + 1);
  Leader.set(0);
  auto LeadAt = [&](int64_t Start) {
    int64_t I = D.Insts.indexAtStart(uint64_t(Start));
    if (I >= 0)
      Leader.set(size_t(I));
  };
  for (size_t I = 0; I < N; ++I) {
    const Instruction &In = D.Insts[I];
    if (!In.Valid || In.info().Terminator || In.info().isJump())
      Leader.set(I + 1);
    if (In.Valid && In.info().isJump() && In.TargetValid)
      LeadAt(In.Target);
  }
  if (D.TableDecoded)
    for (const ExceptionTableEntry &E : D.Table)
      LeadAt(E.Target);
  return Leader;
}

GraphView partialView(const DecodedCode &D) {
  GraphView V;
  V.D = &D;
  V.Partial = true;
  size_t N = D.Insts.size();
  if (N == 0)
    return V;
  llvm::BitVector Leader = partialLeaders(D);
  for (size_t I = 0; I < N;) {
    size_t E = I + 1;
    while (E < N && !Leader.test(E))
      ++E;
    V.Blocks.push_back({uint32_t(I), uint32_t(E), /*Reachable=*/true, {}});
    I = E;
  }
  for (unsigned B = 0; B < V.Blocks.size(); ++B) {
    const Instruction &Last = D.Insts[V.Blocks[B].End - 1];
    if (!Last.Valid)
      continue;
    const OpcodeInfo &Info = Last.info();
    auto Add = [&](EdgeKind K, unsigned To) {
      V.Blocks[B].Succs.push_back(unsigned(V.Edges.size()));
      V.Edges.push_back(CFGEdge{K, B, To});
    };
    if (Info.isJump() && Last.TargetValid)
      Add(Info.isConditionalJump() ? EdgeKind::BranchTaken : EdgeKind::Jump,
          V.blockOfStart(uint32_t(D.Insts.indexAtStart(Last.Target))));
    if (!Info.Terminator && B + 1 < V.Blocks.size())
      Add(Info.isConditionalJump() ? EdgeKind::BranchNotTaken
                                   : EdgeKind::FallThrough,
          B + 1);
  }
  return V;
}

/// The findings of the default checks, by instruction index.
using FindingsByInst = std::map<uint32_t, std::vector<Finding>>;

FindingsByInst findingsOf(const CodeAnalysis &A, const CheckOptions &Opts) {
  FindingsByInst Out;
  const DecodedCode &D = A.decoded();
  for (Finding &F : verifyCode(A, Opts)) {
    // Checks that did not run are about the code object, not an
    // instruction; a partial graph says so in its header. (An analysis
    // limit on a full graph is still drawn.)
    if (F.Check == CheckId::ChecksNotRun && !A.cfg())
      continue;
    int64_t I = D.Insts.indexContaining(F.Offset);
    if (I < 0)
      I = int64_t(D.Insts.size()) - 1;
    if (I >= 0)
      Out[uint32_t(I)].push_back(std::move(F));
  }
  return Out;
}

/// Per offset where table entries land, "handler [1] lasti": the entries'
/// depths and lasti, each once, in order. Built once per code object (a
/// search of the table per block was quadratic: 17 s for `cfg --dot` of a
/// 1 MiB co_code).
using HandlerRoles = std::map<uint32_t, std::string>;

HandlerRoles handlerRoles(const DecodedCode &D) {
  HandlerRoles Roles;
  if (!D.TableDecoded)
    return Roles;
  std::map<uint32_t, std::set<std::string>> Kinds;
  for (const ExceptionTableEntry &E : D.Table)
    Kinds[E.Target].insert(
        formatv("[{0}]{1}", E.Depth, E.Lasti ? " lasti" : ""));
  for (const auto &[Target, Ks] : Kinds) {
    std::string S = "handler";
    for (const std::string &K : Ks)
      S += " " + K;
    Roles.emplace(Target, std::move(S));
  }
  return Roles;
}

/// The role of the block that starts at instruction \p Begin, or "".
StringRef handlerRole(const HandlerRoles &Roles, const DecodedCode &D,
                      uint32_t Begin) {
  auto It = Roles.find(D.Insts[Begin].Start);
  return It == Roles.end() ? StringRef() : StringRef(It->second);
}

/// The block's header words: "entry", "handler [1] lasti", "unreachable".
std::string blockRoles(const GraphView &V, unsigned B,
                       const HandlerRoles &Roles) {
  std::string S;
  auto Add = [&](StringRef W) {
    if (!W.empty())
      S += " " + W.str();
  };
  Add(B == 0 ? "entry" : "");
  Add(handlerRole(Roles, *V.D, V.Blocks[B].Begin));
  Add(V.Blocks[B].Reachable ? "" : "unreachable");
  return S;
}

std::string exceptionEdgeText(const DecodedCode &D, const CFGEdge &E) {
  const ExceptionTableEntry &T = D.Table[E.Entry];
  return formatv("[{0}]{1}{2}", T.Depth, T.Lasti ? " lasti" : "",
                 E.MayRaise ? "" : " no-raise");
}

void printText(raw_ostream &OS, const GraphView &V, StringRef Name,
               const FindingsByInst &Fs) {
  const DecodedCode &D = *V.D;
  OS << "CFG of " << Name << " (" << V.Blocks.size() << " blocks"
     << (V.Partial ? ", partial: not well-formed, no exception edges" : "")
     << ")\n";
  for (unsigned BI = 0; BI < V.Blocks.size(); ++BI) {
    const ViewBlock &B = V.Blocks[BI];
    OS << "  B" << BI << " [" << D.Insts[B.Begin].Start << ", "
       << (B.End > B.Begin ? D.Insts[B.End - 1].End : D.Insts.codeSize()) << ")"
       << (B.Reachable ? "" : " unreachable") << "\n";
    for (auto It = Fs.lower_bound(B.Begin); It != Fs.end() && It->first < B.End;
         ++It)
      for (const Finding &F : It->second)
        OS << "    ! " << getSeverityName(F.Sev) << " at " << F.Offset << ": "
           << F.Message << " [" << getCheckName(F.Check) << "]\n";
    for (unsigned EI : B.Succs) {
      const CFGEdge &E = V.Edges[EI];
      OS << "    -> B" << E.Target << " " << getEdgeKindName(E.Kind);
      if (E.isException())
        OS << " " << exceptionEdgeText(D, E)
           << (E.FromBackEdge ? " back-edge" : "");
      OS << "\n";
    }
  }
}

// --- Graphviz ---------------------------------------------------------------
//
// Written directly rather than through llvm::WriteGraph, whose node names are
// pointer values: pyverify's output must not depend on them.

std::string dotEscape(StringRef S) {
  std::string Out;
  for (char C : jsonSafe(S)) {
    if (C == '"' || C == '\\')
      Out.push_back('\\');
    if (C == '\n') {
      Out += "\\n";
      continue;
    }
    Out.push_back(C);
  }
  return Out;
}

/// \p S cut to MaxArgumentChars characters, the last one an ellipsis, at a
/// UTF-8 character boundary.
std::string shorten(StringRef S) {
  if (S.size() <= MaxArgumentChars)
    return S.str();
  size_t Cut = MaxArgumentChars - 1;
  while (Cut > 0 && (uint8_t(S[Cut]) & 0xC0) == 0x80)
    --Cut;
  return S.take_front(Cut).str() + "\u2026";
}

std::string padLeft(const std::string &S, size_t Width) {
  return std::string(Width > S.size() ? Width - S.size() : 0, ' ') + S;
}

/// Widths of the row columns, as dis aligns them: the line number (0 when
/// the code has no positions) and the offset.
struct RowWidths {
  size_t Line = 0, Offset = 1;
  explicit RowWidths(const DecodedCode &D) {
    for (const Instruction &I : D.Insts.instructions()) {
      if (auto L = D.positionAt(I.Offset).Line)
        Line = std::max(Line, std::to_string(*L).size());
      Offset = std::max(Offset, std::to_string(I.Offset).size());
    }
  }
};

/// "14   4 LOAD_FAST 0 (x)": the line where it changes (always on a
/// block's first row), the offset, the instruction and its argument.
std::string rowText(const DecodedCode &D, uint32_t I, const RowWidths &W,
                    std::optional<int32_t> &LastLine) {
  const Instruction &In = D.Insts[I];
  std::string S;
  if (W.Line) {
    std::optional<int32_t> L = D.positionAt(In.Offset).Line;
    S += padLeft(L && L != LastLine ? std::to_string(*L) : "", W.Line) + "  ";
    LastLine = L;
  }
  S += padLeft(std::to_string(In.Offset), W.Offset) + " " +
       describeInstruction(In);
  std::string Desc = describeArgument(*D.Code, In);
  if (!Desc.empty())
    S += " (" + shorten(Desc) + ")";
  return S;
}

/// The colour of the most severe finding in [Begin, End), or "".
StringRef findingColor(const FindingsByInst &Fs, uint32_t Begin, uint32_t End) {
  std::optional<Severity> Worst;
  for (auto It = Fs.lower_bound(Begin); It != Fs.end() && It->first < End; ++It)
    for (const Finding &F : It->second)
      if (!Worst || F.Sev > *Worst)
        Worst = F.Sev;
  if (!Worst)
    return "";
  return *Worst == Severity::Error     ? "red"
         : *Worst == Severity::Warning ? "orange"
                                       : "blue";
}

void writeDotBlock(raw_ostream &OS, const GraphView &V, unsigned BI,
                   const FindingsByInst &Fs, const RowWidths &W,
                   const HandlerRoles &Roles, StringRef Prefix) {
  const DecodedCode &D = *V.D;
  const ViewBlock &B = V.Blocks[BI];
  OS << "  " << Prefix << "B" << BI << " [label=\"B" << BI
     << blockRoles(V, BI, Roles) << "\\l";
  std::optional<int32_t> LastLine;
  std::string Tooltip;
  for (uint32_t I = B.Begin; I < B.End; ++I) {
    OS << dotEscape(rowText(D, I, W, LastLine));
    auto It = Fs.find(I);
    if (It != Fs.end())
      for (const Finding &F : It->second) {
        OS << "  ! " << getSeverityName(F.Sev) << " [" << getCheckName(F.Check)
           << "]";
        Tooltip += formatv("{0}{1} at {2}: {3} [{4}]",
                           Tooltip.empty() ? "" : "\n", getSeverityName(F.Sev),
                           F.Offset, F.Message, getCheckName(F.Check));
      }
    OS << "\\l";
  }
  OS << "\"";
  if (BI == 0)
    OS << ", peripheries=2";
  if (!handlerRole(Roles, D, B.Begin).empty())
    OS << ", style=rounded";
  StringRef Color = findingColor(Fs, B.Begin, B.End);
  if (!Color.empty())
    OS << ", color=" << Color << ", penwidth=2, tooltip=\""
       << dotEscape(Tooltip) << "\"";
  else if (!B.Reachable)
    OS << ", color=gray";
  OS << "];\n";
}

void writeDotEdge(raw_ostream &OS, const DecodedCode &D, const CFGEdge &E,
                  StringRef Prefix) {
  OS << "  " << Prefix << "B" << E.Source << " -> " << Prefix << "B"
     << E.Target;
  switch (E.Kind) {
  case EdgeKind::Exception:
    OS << " [style=dashed, color=red, label=\"exc " << exceptionEdgeText(D, E)
       << "\"]";
    break;
  case EdgeKind::BranchTaken:
    OS << " [label=\"taken\"]";
    break;
  case EdgeKind::BranchNotTaken:
    OS << " [label=\"not taken\"]";
    break;
  case EdgeKind::Jump:
    OS << " [label=\"jump\"]";
    break;
  case EdgeKind::FallThrough:
    break;
  }
  OS << ";\n";
}

/// The graph of one code object: a digraph of its own, or (\p Cluster) the
/// subgraph "cluster_K" of the run's digraph with node names prefixed "cK_".
void writeDot(raw_ostream &OS, const GraphView &V, StringRef Name,
              const FindingsByInst &Fs, std::optional<unsigned> Cluster) {
  const DecodedCode &D = *V.D;
  std::string Prefix = Cluster ? formatv("c{0}_", *Cluster).str() : "";
  if (Cluster)
    OS << "subgraph \"cluster_" << *Cluster << "\" {\n  label=\""
       << dotEscape(Name) << "\";\n";
  else
    OS << "digraph \"" << dotEscape(Name) << "\" {\n";
  if (V.Partial)
    OS << "  label=\"partial graph: " << dotEscape(Name)
       << " is not well-formed; edges only where the code can be trusted, "
          "no exception edges\";\n  labelloc=t;\n";
  OS << "  node [shape=box, fontname=monospace];\n";
  RowWidths W(D);
  HandlerRoles Roles = handlerRoles(D);
  for (unsigned BI = 0; BI < V.Blocks.size(); ++BI)
    writeDotBlock(OS, V, BI, Fs, W, Roles, Prefix);
  for (const CFGEdge &E : V.Edges)
    writeDotEdge(OS, D, E, Prefix);
  OS << "}\n";
}

/// The run's --dot output: each code object's graph both ways, until the
/// end shows whether there is one (its digraph) or several (clusters).
struct DotOutput {
  std::vector<std::string> Alone, Clustered;

  void add(const GraphView &V, StringRef Name, const FindingsByInst &Fs) {
    {
      StringOStream A(Alone.emplace_back());
      writeDot(A, V, Name, Fs, std::nullopt);
    }
    StringOStream C(Clustered.emplace_back());
    writeDot(C, V, Name, Fs, unsigned(Clustered.size() - 1));
  }
  void print(raw_ostream &OS) const {
    if (Alone.size() == 1) {
      OS << Alone.front();
      return;
    }
    if (Alone.empty())
      return;
    OS << "digraph \"pyverify cfg\" {\n  node [shape=box, "
          "fontname=monospace];\n";
    for (const std::string &G : Clustered)
      OS << G;
    OS << "}\n";
  }
};

/// The name a code object is shown and selected by.
std::string codeName(const CodeTarget &T, const CodeObject &C) {
  return T.Target.empty() ? C.QualName.str()
                          : "[" + T.Target + "] " + C.QualName.str();
}

void showCode(const std::string &Path, const CodeTarget &T, const CodeObject &C,
              DotOutput &Dots) {
  std::string Name = codeName(T, C);
  CheckOptions Opts;
  CodeAnalysis A(C, Opts.Balance);
  FindingsByInst Fs = findingsOf(A, Opts);
  GraphView V = A.cfg() ? viewOf(*A.cfg()) : partialView(A.decoded());
  if (V.Partial)
    WithColor::warning(errs(), "pyverify")
        << Path << ": " << Name
        << ": not well-formed; partial graph without exception edges (run "
           "'pyverify check')\n";
  if (Dot)
    Dots.add(V, Name, Fs);
  else
    printText(outs(), V, Name, Fs);
}

} // namespace

/// The names of \p Seen nearest to \p Want (by edit distance, or sharing
/// its last dotted component), at most 8, for the no-match error.
std::string nearNames(StringRef Want, const std::set<std::string> &Seen) {
  std::vector<std::pair<unsigned, std::string>> Near;
  StringRef Last =
      Want.rsplit('.').second.empty() ? Want : Want.rsplit('.').second;
  for (const std::string &N : Seen) {
    unsigned Dist = StringRef(N).edit_distance(Want);
    if (Dist <= std::max<size_t>(2, Want.size() / 3) ||
        StringRef(N).endswith(Last))
      Near.emplace_back(Dist, N);
  }
  llvm::sort(Near);
  if (Near.empty()) // Nothing near: the first names, so the user sees some.
    for (const std::string &N : Seen)
      Near.emplace_back(0, N);
  std::string S;
  for (size_t K = 0; K < Near.size() && K < 8; ++K)
    S += (K ? ", " : "") + Near[K].second;
  if (Near.size() > 8)
    S += ", ...";
  return S;
}

int runCfg() {
  if (CfgInputs.empty())
    return usageError("cfg", "no input (give files or directories)");
  Expected<InputVersions> Versions = versionsFromOptions();
  if (!Versions) {
    WithColor::error(errs(), "pyverify")
        << toString(Versions.takeError()) << "\n";
    return ExitUsage;
  }
  TargetWalk Walk;
  DotOutput Dots;
  std::set<std::string> Seen;
  unsigned Shown = 0;
  int Status = forEachTarget(
      CfgInputs,
      [&](const std::string &Path, const CodeTarget &T) {
        Walk.visit(Path, T, [&](const CodeObject &C, unsigned) {
          std::string Name = codeName(T, C);
          if (!Function.empty() && Function != C.QualName && Function != Name) {
            Seen.insert(Name);
            return;
          }
          ++Shown;
          showCode(Path, T, C, Dots);
        });
      },
      *Versions);
  Dots.print(outs());
  if (!Function.empty() && !Shown && !Seen.empty())
    return usageError("cfg", "no code object is named '" + Function +
                                 "'; nearest: " + nearNames(Function, Seen));
  return Status;
}

} // namespace pyverify::tool
