// filter_corpus_llvm.cpp - filter_corpus.txt through the plugin's own
// matcher (pass/Filter.cpp, LLVM's GlobPattern), so that the runtime's C
// matcher, run on the same file by test_filter.c, is held to it.
#include "Filter.h"

#include <climits>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

static std::vector<std::string> split(const std::string &S, char C) {
  std::vector<std::string> Out(1);
  for (char X : S)
    if (X == C)
      Out.emplace_back();
    else
      Out.back() += X;
  return Out;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  std::ifstream In(argv[1]);
  std::string Line;
  int Cases = 0, Failures = 0;
  while (std::getline(In, Line)) {
    if (Line.empty() || Line[0] == '#')
      continue;
    std::vector<std::string> F = split(Line, '\t');
    if (F.size() != 4) {
      std::fprintf(stderr, "%s: bad line: %s\n", argv[1], Line.c_str());
      return 2;
    }
    std::string Text;
    for (size_t P = 0;;) {
      size_t Q = F[0].find(" ;; ", P);
      Text += F[0].substr(P, Q == std::string::npos ? Q : Q - P) + "\n";
      if (Q == std::string::npos)
        break;
      P = Q + 4;
    }
    std::string Got;
    llvm::Expected<scopeprof::Filter> Flt =
        scopeprof::Filter::parse("f.txt", Text);
    if (!Flt) {
      std::string Msg = llvm::toString(Flt.takeError());
      size_t Colon = Msg.find(':', 6);
      Got = "E:" + Msg.substr(6, Colon - 6); // "f.txt:N: ..."
    } else {
      Got = Flt->decide(F[1], F[1], F[2], UINT_MAX).Keep ? "1" : "0";
    }
    ++Cases;
    if (Got != F[3]) {
      ++Failures;
      std::printf("FAIL: '%s' name '%s' file '%s': %s, not %s\n", F[0].c_str(),
                  F[1].c_str(), F[2].c_str(), Got.c_str(), F[3].c_str());
    }
  }
  std::printf("%d cases, %d failures\n", Cases, Failures);
  return Failures != 0 || Cases == 0;
}
