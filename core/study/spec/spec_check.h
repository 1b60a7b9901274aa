#pragma once
// Every problem of a study spec at once, each with its line and field. The parser
// (parseStudySpec) stops at the first problem; this checker parses again after setting the
// offending field aside, until the spec parses or nothing more can be learnt, so a user fixing a
// file sees the whole list (syntax errors stop it: nothing after them can be read).

#include <string>
#include <vector>

namespace paritylab::study {

struct SpecIssue {
  int line = 0, column = 0;  // 1-based position of the field in the text (0 = not located)
  std::string field;         // "epochs", "backends[2].policy"; "" for JSON syntax errors
  std::string message;       // "file:line:column: field: what is wrong"
};

// text: the spec's JSON; file: the name used in messages. Empty when the spec is valid. Does not
// open the dataset (validateDataset does).
std::vector<SpecIssue> checkStudySpec(const std::string& text, const std::string& file);

}  // namespace paritylab::study
