// Filter.h - the user's filter file: include/exclude rules on function names
// and source files, and a minimum function size (syntax in docs/plugin.md).
#ifndef SCOPEPROF_FILTER_H
#define SCOPEPROF_FILTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include <memory>
#include <string>
#include <vector>

namespace scopeprof {

class Filter {
public:
  struct Decision {
    bool Keep;
    std::string Why; // which rule decided, for -sp-verbose
  };

  // Parses Text (read from Path); errors are "Path:LINE: message".
  static llvm::Expected<Filter> parse(llvm::StringRef Path,
                                      llvm::StringRef Text);
  // Reads and parses Path; the error names the file.
  static llvm::Expected<Filter> load(llvm::StringRef Path);

  // Name is the region name, Symbol the linkage name, File the source path;
  // InstCount the function's size in IR instructions.
  Decision decide(llvm::StringRef Name, llvm::StringRef Symbol,
                  llvm::StringRef File, unsigned InstCount) const;

  bool empty() const { return Rules.empty() && MinInstructions == 0; }

private:
  struct Rule {
    bool Include;
    bool OnFile; // file glob, else function glob
    // GlobPattern keeps a StringRef to its source: the text lives on the
    // heap, at an address that survives moves of the rule and the filter.
    std::shared_ptr<const std::string> Glob;
    llvm::GlobPattern Pattern;
    std::string Text;
    unsigned Line;
  };
  std::string Path;
  std::vector<Rule> Rules;
  unsigned MinInstructions = 0;
  unsigned MinInstructionsLine = 0;
};

} // namespace scopeprof

#endif
