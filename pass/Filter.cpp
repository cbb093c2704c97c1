// Filter.cpp - parses the filter file and decides, per function, whether the
// pass instruments it. Last matching rule wins, as in .gitignore.
#include "Filter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace scopeprof {

static Error lineError(StringRef Path, unsigned Line, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ":" + Twine(Line) + ": " + Msg);
}

Expected<Filter> Filter::parse(StringRef Path, StringRef Text) {
  Filter F;
  F.Path = Path.str();
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    unsigned LineNo = I + 1;
    StringRef L = Lines[I].trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    auto [Verb, Rest] = L.split(' ');
    Rest = Rest.trim();
    if (Verb == "min-instructions") {
      unsigned N;
      // getAsInteger returns true on failure; a trailing word is an error too.
      if (Rest.empty() || Rest.getAsInteger(10, N))
        return lineError(
            Path, LineNo,
            "min-instructions needs a non-negative integer, got '" + Rest +
                "'");
      F.MinInstructions = N;
      F.MinInstructionsLine = LineNo;
      continue;
    }
    if (Verb != "include" && Verb != "exclude")
      return lineError(Path, LineNo,
                       "unknown directive '" + Verb +
                           "' (expected include, exclude or min-instructions)");
    auto [What, Glob] = Rest.split(' ');
    Glob = Glob.trim();
    if (What != "function" && What != "file")
      return lineError(Path, LineNo,
                       "expected 'function' or 'file' after '" + Verb +
                           "', got '" + What + "'");
    if (Glob.empty())
      return lineError(Path, LineNo,
                       "missing glob after '" + Verb + " " + What + "'");
    auto Owned = std::make_shared<const std::string>(Glob.str());
    Expected<GlobPattern> P = GlobPattern::create(*Owned);
    if (!P)
      return lineError(Path, LineNo,
                       "bad glob '" + Glob + "': " + toString(P.takeError()));
    F.Rules.push_back(Rule{Verb == "include", What == "file", Owned,
                           std::move(*P),
                           (Verb + " " + What + " " + Glob).str(), LineNo});
  }
  return F;
}

Expected<Filter> Filter::load(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read filter file " + Path +
                                                 ": " +
                                                 Buf.getError().message());
  return parse(Path, (*Buf)->getBuffer());
}

Filter::Decision Filter::decide(StringRef Name, StringRef Symbol,
                                StringRef File, unsigned InstCount) const {
  const Rule *Last = nullptr;
  for (const Rule &R : Rules) {
    bool Hit = R.OnFile ? R.Pattern.match(File)
                        : (R.Pattern.match(Name) || R.Pattern.match(Symbol));
    if (Hit)
      Last = &R;
  }
  std::string Where =
      Last ? (Path + ":" + std::to_string(Last->Line) + " '" + Last->Text + "'")
           : std::string();
  if (Last && !Last->Include)
    return {false, "excluded by " + Where};
  // An explicit 'include function' overrides the size threshold: the user
  // named this function.
  if (Last && !Last->OnFile)
    return {true, "included by " + Where};
  if (InstCount < MinInstructions)
    return {false, std::to_string(InstCount) + " instructions < " +
                       "min-instructions " + std::to_string(MinInstructions) +
                       " (" + Path + ":" + std::to_string(MinInstructionsLine) +
                       ")"};
  return {true, Last ? "included by " + Where : std::string()};
}

} // namespace scopeprof
